import { closingBrace } from './braces.ts';
import { StepBudget } from './budget.ts';

const BOX_COMMANDS = ['\\boxed', '\\fbox'];
/** What may stand between boxes that list several answers: `\boxed{1}, \boxed{2}`, `$\boxed{1}$ and $\boxed{2}$`. */
const LIST_SEPARATOR = /^[\s$]*(?:,|;|\band\b|\bor\b|\\text\{\s*(?:and|or|,)\s*\})[\s$]*$/;
/** A run of boxes is only looked back over this far between two boxes. */
const MAX_SEPARATOR_CHARS = 40;
/** Math-Verify's run of boxes: anything under 10 characters between two boxes, or under 70 with a separator. */
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
 * `lenient` (Math-Verify's rules): boxes side by side belong to the run too (`\boxed{3}\boxed{8}`, `\boxed{3} \quad
 * \boxed{8}`): under 10 characters of anything between them, or under 70 with "and", "or", a comma or `;` among them
 * and a different content.
 */
export function lastBox(text: string, budget: StepBudget, lenient = false): { answer?: string; truncated: boolean } | undefined {
  const boxes = new BoxesBackwards(text, budget);
  const last = boxes.before(text.length);
  if (last === undefined) return undefined;
  if (last.content === undefined) return { truncated: !last.closed };
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
