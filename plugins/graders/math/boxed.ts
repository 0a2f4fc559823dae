import { closingBrace } from './braces.ts';
import { StepBudget } from './budget.ts';
import { MAX_LISTED_SPANS, PERCENT_AFTER, SPAN_LIST_SEPARATOR } from './math-mode.ts';

const BOX_COMMANDS = ['\\boxed', '\\fbox'];
/** What may stand between boxes that list several answers: `\boxed{1}, \boxed{2}`, `$\boxed{1}$ and $\boxed{2}$`. */
const LIST_SEPARATOR = /^[\s$]*(?:,|;|\band\b|\bor\b|\\text\{\s*(?:and|or|,)\s*\})[\s$]*$/;
/** A run of boxes is only looked back over this far between two boxes. */
const MAX_SEPARATOR_CHARS = 40;
/** Math-Verify's run of boxes in plain text: anything under 10 characters between two, or under 70 with a separator. */
const MV_ANY_GAP = 10;
const MV_SEPARATED_GAP = 70;
const MV_SEPARATOR = /and|or|,|;/;

interface Box {
  /** Where the `\boxed` command starts. */
  at: number;
  /** Just past its argument. */
  end: number;
  content: string | undefined;
  /** False for a `\boxed{` that never closes. */
  closed: boolean;
}

/**
 * The content of the LAST `\boxed{…}` / `\fbox{…}` (nested braces kept) or `\boxed 5` in `text`. Boxes listed
 * just before it with only a comma, `;`, "and" or "or" between them are answers of the same list: their contents
 * come back joined by commas (`\boxed{1}, \boxed{2}` gives `1, 2`). Undefined when there is no box, when the last
 * one is empty, or when it never closes (a truncated final answer is no answer, even if an earlier box was complete).
 */
export function lastBoxed(text: string, budget: StepBudget = new StepBudget(), lenient = false): string | undefined {
  return lastBox(text, budget, lenient)?.answer;
}

/**
 * What the last box holds (see `lastBoxed`); `truncated` when it never closes. Undefined when there is no box.
 * `lenient` reads a run of boxes as Math-Verify does. A last box inside math delimiters (`$\boxed{3}$`) is read with
 * every box of its span, whatever lies between them, and with up to five spans before it holding boxes and listed
 * with "and", "or" or a comma (`$\boxed{3}$ and $\boxed{8}$`). A last box in plain text takes the boxes before it
 * with under 10 characters of anything between (`\boxed{3}\boxed{8}`), or under 70 holding "and", "or", a comma or
 * `;` (as letters anywhere, as Math-Verify looks for them) when the contents differ.
 */
export function lastBox(text: string, budget: StepBudget, lenient = false): { answer?: string; truncated: boolean } | undefined {
  const boxes = new BoxesBackwards(text, budget);
  const last = boxes.before(text.length);
  if (last === undefined) return undefined;
  if (last.content === undefined) return { truncated: !last.closed };
  const span = lenient ? enclosingSpan(text, last, budget) : undefined;
  if (span) {
    const percent = PERCENT_AFTER.test(text.slice(span.end, span.end + 20)) ? '\\%' : '';
    return { answer: `${spanRun(text, boxes, last, span, budget).join(', ')}${percent}`, truncated: false };
  }
  const contents = [last.content];
  for (let box = last; ; ) {
    const previous = boxes.before(box.at);
    if (previous?.content === undefined) break;
    if (!(lenient ? mvSameRun(text.slice(previous.end, box.at), previous.content, contents[contents.length - 1]) : listed(text, previous, box))) break;
    contents.push(previous.content);
    box = previous;
  }
  return { answer: contents.reverse().join(', '), truncated: false };
}


/** The boxes of the last box's span, then of the spans listed before it, in the order written. */
function spanRun(text: string, boxes: BoxesBackwards, last: Box, span: MathSpan, budget: StepBudget): string[] {
  const groups: string[][] = [];
  let current: Box | undefined = last;
  let currentSpan: MathSpan = span;
  for (;;) {
    const contents: string[] = [];
    let first: Box = current;
    for (let box: Box | undefined = current; box !== undefined && box.at >= currentSpan.open; box = boxes.before(box.at)) {
      if (box.content !== undefined) contents.push(box.content);
      first = box;
    }
    groups.push(contents.reverse());
    if (groups.length >= MAX_LISTED_SPANS) break;
    const previous = boxes.before(first.at);
    const previousSpan = previous?.content === undefined ? undefined : enclosingSpan(text, previous, budget);
    if (!previous || !previousSpan || previousSpan.end > currentSpan.open || !SPAN_LIST_SEPARATOR.test(text.slice(previousSpan.end, currentSpan.open))) break;
    current = previous;
    currentSpan = previousSpan;
  }
  return groups.reverse().flat();
}

interface MathSpan {
  /** Where the opening delimiter starts. */
  open: number;
  /** Just past the closing delimiter. */
  end: number;
}

/**
 * The math span around a box, as Math-Verify's patterns find one: `$$…$$` and `\[…\]` over lines, `$…$` and `\(…\)`
 * within one line. A `$` opens a span when an odd number of single dollars come before it on its line.
 */
function enclosingSpan(text: string, box: Box, budget: StepBudget): MathSpan | undefined {
  const lineStart = text.lastIndexOf('\n', box.at) + 1;
  const lineEnd = ((end) => (end < 0 ? text.length : end))(text.indexOf('\n', box.end));
  budget.tick(lineEnd - lineStart);
  const display = between(text, box, '\\[', '\\]', 0, text.length);
  if (display) return display;
  const inline = between(text, box, '\\(', '\\)', lineStart, lineEnd);
  if (inline) return inline;
  const before = text.slice(lineStart, box.at).replace(/\\\$/g, '  ');
  const after = text.slice(box.end, lineEnd).replace(/\\\$/g, '  ');
  const doubles = (before.match(/\$\$/g) ?? []).length;
  if (doubles % 2 === 1 && after.includes('$$')) return { open: lineStart + before.lastIndexOf('$$'), end: box.end + after.indexOf('$$') + 2 };
  const singles = before.replace(/\$\$/g, '  ');
  if ((singles.match(/\$/g) ?? []).length % 2 === 1) {
    const close = after.replace(/\$\$/g, '  ').indexOf('$');
    if (close >= 0) return { open: lineStart + singles.lastIndexOf('$'), end: box.end + close + 1 };
  }
  return undefined;
}

/** The `opener…closer` pair around `box` within [from, to), when the last opener before it is not yet closed. */
function between(text: string, box: Box, opener: string, closer: string, from: number, to: number): MathSpan | undefined {
  const open = text.lastIndexOf(opener, box.at);
  if (open < from || text.lastIndexOf(closer, box.at) > open) return undefined;
  const close = text.indexOf(closer, box.end);
  return close < 0 || close + closer.length > to ? undefined : { open, end: close + closer.length };
}

function listed(text: string, previous: Box, box: Box): boolean {
  return box.at - previous.end <= MAX_SEPARATOR_CHARS && LIST_SEPARATOR.test(text.slice(previous.end, box.at));
}

function mvSameRun(between: string, content: string, next: string): boolean {
  return between.length < MV_ANY_GAP || (between.length < MV_SEPARATED_GAP && content !== next && MV_SEPARATOR.test(between));
}

/**
 * Box commands read from the end of `text` backwards. Each command's last match is remembered, so walking a run
 * of N boxes searches every character once per command, not once per box.
 */
class BoxesBackwards {
  private readonly found = new Map<string, number>();

  constructor(
    private readonly text: string,
    private readonly budget: StepBudget,
  ) {}

  /** The last box command starting before `limit`, read up to the end of its argument. */
  before(limit: number): Box | undefined {
    const at = this.lastCommand(limit);
    if (at === undefined) return undefined;
    const text = this.text;
    let i = at.end;
    while (i < text.length && /\s/.test(text[i])) {
      this.budget.tick();
      i++;
    }
    if (text[i] === '{') {
      const close = closingBrace(text, i, this.budget);
      if (close < 0) return { at: at.at, end: text.length, content: undefined, closed: false };
      return { at: at.at, end: close + 1, content: nonEmpty(text.slice(i + 1, close)), closed: true };
    }
    const word = /^[^\s$]+/.exec(text.slice(i, i + 10_000));
    this.budget.tick(word?.[0].length ?? 1);
    const content = word ? nonEmpty(word[0].replace(/[.,;]+$/, '')) : undefined;
    return { at: at.at, end: i + (word?.[0].length ?? 0), content, closed: word !== null };
  }

  private lastCommand(limit: number): { at: number; end: number } | undefined {
    let best: { at: number; end: number } | undefined;
    for (const command of BOX_COMMANDS) {
      const at = this.lastOf(command, limit);
      if (at >= 0 && (best === undefined || at > best.at)) best = { at, end: at + command.length };
    }
    return best;
  }

  /** The last `command` (not the start of a longer name such as `\boxedanswer`) starting before `limit`; -1 if none. */
  private lastOf(command: string, limit: number): number {
    let at = this.found.get(command);
    if (at === undefined || at >= limit) {
      at = limit <= 0 ? -1 : this.text.lastIndexOf(command, limit - 1);
      while (at >= 0 && /[a-zA-Z]/.test(this.text[at + command.length] ?? '')) {
        this.budget.tick();
        at = at === 0 ? -1 : this.text.lastIndexOf(command, at - 1);
      }
      this.found.set(command, at);
    }
    return at;
  }
}

function nonEmpty(content: string): string | undefined {
  const trimmed = content.trim();
  return trimmed.length > 0 ? trimmed : undefined;
}

/** GSM8K writes its final answer on a last line `#### 72`. */
export function gsm8kFinal(text: string): string | undefined {
  const at = text.lastIndexOf('####');
  if (at < 0) return undefined;
  return nonEmpty(text.slice(at + 4).split('\n', 1)[0]);
}

/** Gold may be a bare answer or a worked solution: its last box, else its `####` line, else the whole text. */
export function goldAnswerOf(gold: string, budget: StepBudget = new StepBudget()): string | undefined {
  return lastBoxed(gold, budget) ?? gsm8kFinal(gold) ?? nonEmpty(gold);
}
