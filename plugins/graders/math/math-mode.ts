import type { StepBudget } from './budget.ts';
import { isProse } from './prose.ts';

/** Spans tried from the end before giving up: prose between two currency signs is not math. */
const MAX_SPANS_TRIED = 8;
/** Inside math mode two plain words already mean prose: `$5 and then $7` is two prices, not an answer. */
const PROSE_WORDS_IN_MATH = 2;
/** Math-Verify reads any span as math; three words still make one prose, but `$BD:DC = 3:4$` is math. */
const PROSE_WORDS_IN_MATH_MV = 3;
/** Marks that end a proof or pad a line (`$\blacksquare$`), not answers. */
const DECORATION = /^(?:\\(?:square|blacksquare|Box|qed|checkmark|ldots|cdots|dots|quad|qquad)\s*)+$/;

interface Span {
  /** Where the opening delimiter starts. */
  open: number;
  /** Just past the closing delimiter. */
  end: number;
  content: string;
  /** `$…$` or `\(…\)`, which Math-Verify reads only within one line. */
  inline: boolean;
}

/** Math-Verify joins up to five more spans listed before the last: `$x = 1$ or $x = 2$`, `$3$, $5$ and $7$`. */
export const MAX_LISTED_SPANS = 6;
/** What may stand between two listed spans: only this between a span's closer and the next span's opener. */
export const SPAN_LIST_SEPARATOR = /^\s*(?:,?and|,?or|,)\s*$/;
/** A plain number after the last span, as Math-Verify finds one: after a space, `=` or the start, maybe a currency sign. */
/** `$40$%`, `$40$ percent`: a percent sign or word right after the span belongs to it. */
export const PERCENT_AFTER = /^\s*(?:\\?%|[Pp]ercent|[Pp]ct)/;
const PLAIN_NUMBER_AFTER = /(?:^|[\s=])(?:\*\*)?[$€£¥₹]?-?\d/;

/**
 * The content of the last `$…$`, `$$…$$`, `\(…\)` or `\[…\]` in `text` that holds math rather than prose.
 * Read backwards from the end with the engine's own string search, so a megabyte costs a few scans, not a parse.
 */
export function lastMathSpan(text: string, budget: StepBudget): string | undefined {
  return lastSpan(text, text.length, budget)?.content;
}

/**
 * Math-Verify's reading of the last math span: spans listed before it with only "and", "or" or a comma between them
 * join it as one answer (`$x = 1$ or $x = 2$` is `x = 1, x = 2`), and a plain number written after it is the answer
 * instead (undefined here, so the `bare` step finds it): the rightmost of the two wins.
 */
export function lastMathSpanListed(text: string, budget: StepBudget): string | undefined {
  const last = lastSpan(text, text.length, budget, PROSE_WORDS_IN_MATH_MV, true);
  if (!last) return undefined;
  const after = text.slice(last.end, last.end + 2_000);
  budget.tick(after.length);
  if (PLAIN_NUMBER_AFTER.test(after.replace(/\\\$/g, ' '))) return undefined;
  const contents = [PERCENT_AFTER.test(after) ? `${last.content}\\%` : last.content];
  for (let span = last; contents.length < MAX_LISTED_SPANS; ) {
    const previous = lastSpan(text, span.open, budget, PROSE_WORDS_IN_MATH_MV, true);
    if (!previous || previous.end > span.open || !SPAN_LIST_SEPARATOR.test(text.slice(previous.end, span.open))) break;
    contents.push(previous.content);
    span = previous;
  }
  return contents.reverse().join(', ');
}

/**
 * Math-Verify's LaTeX parser fails on math ending in a full stop, comma or semicolon (`$$\frac{1}{2}.$$`), so such a
 * span gives no answer; a plain number in it may still be one (`$$x = 5.$$` gives 5).
 */
const UNPARSED_END = /[.,;]$/;

/**
 * The last span ending before `before` that holds math. `mv` (Math-Verify's patterns and parser): a `$…$` or `\(…\)`
 * never holds a line break, so `$\n\sqrt{2}\n$` is no span at all (only `$$…$$` and `\[…\]` run over lines), and a
 * span ending in `.`, `,` or `;` is skipped.
 */
function lastSpan(text: string, before: number, budget: StepBudget, proseWords = PROSE_WORDS_IN_MATH, mv = false): Span | undefined {
  let limit = before;
  for (let tried = 0; tried < MAX_SPANS_TRIED && limit > 0; tried++) {
    budget.tick();
    const span = spanEndingBefore(text, limit, budget);
    if (!span) return undefined;
    budget.tick(span.content.length);
    const content = span.content.trim();
    if (DECORATION.test(content) || (mv && UNPARSED_END.test(content))) {
      limit = span.open;
      continue;
    }
    const broken = mv && span.inline && span.content.includes('\n');
    if (!broken && /[0-9a-zA-Z\\]/.test(content) && !isProse(content, proseWords)) return { ...span, content };
    // One delimiter back: an opener taken for a closer (`$` pairs are ambiguous) gets its turn as a closer.
    limit = span.open + 1;
  }
  return undefined;
}

/**
 * First complete math span of `text` (for the words after "the answer is"); under Math-Verify's rules (`mv`) none when
 * it ends in `.`, `,` or `;`, which its parser cannot read.
 */
export function firstMathSpan(text: string, mv = false): string | undefined {
  const open = /\$\$|\$|\\\(|\\\[/.exec(text.replace(/\\\$/g, '  '));
  if (!open) return undefined;
  const closer = open[0] === '\\(' ? '\\)' : open[0] === '\\[' ? '\\]' : open[0];
  const close = indexOfUnescaped(text, closer, open.index + open[0].length);
  const content = close < 0 ? '' : text.slice(open.index + open[0].length, close).trim();
  return content === '' || (mv && UNPARSED_END.test(content)) ? undefined : content;
}

function spanEndingBefore(text: string, limit: number, budget: StepBudget): Span | undefined {
  const display = limit < 2 ? -1 : text.lastIndexOf('\\]', limit - 2);
  const inline = limit < 2 ? -1 : text.lastIndexOf('\\)', limit - 2);
  const dollar = lastUnescaped(text, '$', limit - 1, budget);
  const close = Math.max(display, inline, dollar);
  if (close < 0) return undefined;
  if (close === display || close === inline) {
    const opener = close === display ? '\\[' : '\\(';
    const open = text.lastIndexOf(opener, close - 1);
    return open < 0 ? undefined : { open, end: close + 2, content: text.slice(open + 2, close), inline: close === inline };
  }
  const double = close > 0 && text[close - 1] === '$' && text[close - 2] !== '\\';
  if (double) {
    const open = text.lastIndexOf('$$', close - 2);
    return open < 0 ? undefined : { open, end: close + 1, content: text.slice(open + 2, close - 1), inline: false };
  }
  const open = lastUnescaped(text, '$', close - 1, budget);
  return open < 0 ? undefined : { open, end: close + 1, content: text.slice(open + 1, close), inline: true };
}

/** Last `char` at or before `from` that is not written `\char`. */
function lastUnescaped(text: string, char: string, from: number, budget: StepBudget): number {
  let at = from < 0 ? -1 : text.lastIndexOf(char, from);
  while (at > 0 && text[at - 1] === '\\') {
    budget.tick();
    at = at < 2 ? -1 : text.lastIndexOf(char, at - 2);
  }
  return at;
}

function indexOfUnescaped(text: string, search: string, from: number): number {
  let at = text.indexOf(search, from);
  while (at > 0 && search === '$' && text[at - 1] === '\\') at = text.indexOf(search, at + 1);
  return at;
}
