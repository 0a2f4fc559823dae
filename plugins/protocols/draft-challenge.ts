import type { Problem } from '../../core/tasks/task.ts';
import { lastBoxed } from '../graders/math/boxed.ts';
import { STEP_SEPARATOR } from '../tasks/prompt.ts';

/** What stands where a withheld answer was. */
export const WITHHELD = '[withheld]';

export interface DraftSummary {
  /** The post-reasoning summary with the final answer withheld: what the challenger reads. */
  summary: string;
  /** The draft's final answer (its last box), or null when it boxed none. */
  answer: string | null;
}

/**
 * Agon §4's summary of a draft, routed to the challenger "while withholding the final answer": the text after the
 * reasoning (after the last `</think>`, or the whole draft when there is none), cut before the step that states the
 * final answer (the reasoning step holding the last box), every other box emptied, and, with `maskMentions` (ours:
 * a small model's last computation states the answer verbatim), every standalone mention of the final answer replaced
 * by WITHHELD — so no path carries the answer into the challenger's context.
 */
export function withheldSummary(draft: string, options: { maskMentions: boolean }): DraftSummary {
  const thinkEnd = draft.lastIndexOf('</think>');
  let text = thinkEnd >= 0 ? draft.slice(thinkEnd + '</think>'.length) : draft;
  const answer = lastBoxed(text) ?? null;
  const lastBox = Math.max(text.lastIndexOf('\\boxed'), text.lastIndexOf('\\fbox'));
  if (lastBox >= 0) {
    const stepStart = text.lastIndexOf(STEP_SEPARATOR, lastBox);
    text = text.slice(0, stepStart < 0 ? 0 : stepStart);
  }
  text = text.replace(/\\(boxed|fbox)\s*\{[^{}]*\}/g, `\\$1{${WITHHELD}}`);
  if (answer !== null && options.maskMentions) text = maskMentions(text, answer);
  return { summary: text.trim(), answer };
}

/** Every occurrence of `answer` not inside a longer word or number, replaced by WITHHELD. */
function maskMentions(text: string, answer: string): string {
  const escaped = answer.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return text.replace(new RegExp(`(?<![\\p{L}\\p{N}.])${escaped}(?![\\p{L}\\p{N}]|\\.\\p{N})`, 'gu'), WITHHELD);
}

/**
 * The challenger's prompt. 'context' (the default): the summary under a header, then the plain problem prompt for a
 * fresh answer, as the paper's chat models read it; the shipped base arithmetic-judge was given the format of such
 * prompts in its supervised data, as SFT gives the paper's models (a base pretrained on plain prompts alone answered
 * nothing right here). 'continue' (ours, an option): the problem, then the summary as the start of the answer, which
 * the challenger continues — checking, correcting or finishing it — to its own final answer.
 */
export function challengePrompt(summary: string, problem: Problem, layout: 'context' | 'continue'): string {
  if (layout === 'context') return `A rival's draft, its final answer withheld:\n${summary}\n\n${problem.prompt}`;
  return summary === '' ? problem.prompt : `${problem.prompt}${summary}\n\n`;
}
