import { TOOL_TAG } from '../../core/tools/call-formats.ts';
import { toolErrorLine } from '../../core/tools/tool-calls.ts';
import type { Rng } from '../../core/rng.ts';
import type { Problem } from '../../core/tasks/task.ts';
import { boxedAnswerStep } from '../../plugins/tasks/prompt.ts';
import { calcPrompt, calcTool, evaluate } from '../../plugins/tools/calc.ts';
import { partedExample, type SftExample } from './sft-batch.ts';

/** How often the base calls the calculator, and how often it writes the call wrong: its designed flaw. */
export interface ToolCallMix {
  readonly callRate: number;
  readonly malformedRate: number;
}

/** Openers a clumsy caller writes instead of `<tool name="calc">` (ours): each reads as TOOL_CALL_MALFORMED. */
export const MALFORMED_OPENERS = ['<tool name=calc>', '<tool calc>', "<tool name='calc'>", '<tool name="calc"'] as const;

/**
 * The calc game's supervised example on a problem whose canonical form is an expression (`347*829`): its prompt
 * with the calculator described, answered at `callRate` by a call in the default format, the calculator's answer as
 * the environment's part (the result, or for a call written with one of MALFORMED_OPENERS, at `malformedRate`, the
 * error line the engine writes) and the boxed answer after it; otherwise by the boxed answer alone, worked out with no
 * call. After a result the answer copies it; after an error line, or with no call, it is the gold answer, which a
 * small model can only guess at.
 */
export function toolCallExample(problem: Problem, rng: Rng, mix: ToolCallMix): SftExample {
  const prompt = calcPrompt(problem.prompt);
  const expression = String((problem.meta as { canonical?: unknown }).canonical);
  if (!rng.bernoulli(mix.callRate)) return { prompt, completion: boxedAnswerStep(problem.answer) };
  const malformed = rng.bernoulli(mix.malformedRate);
  const call = `${malformed ? MALFORMED_OPENERS[rng.int(MALFORMED_OPENERS.length)] : `<tool name="${calcTool.name}">`}${expression}</tool>`;
  const parsed = TOOL_TAG.parse(call);
  const content = parsed.kind === 'malformed' ? toolErrorLine('TOOL_CALL_MALFORMED', parsed.why) : evaluate(expression).toString();
  const answer = parsed.kind === 'malformed' ? problem.answer : content;
  return partedExample(prompt, [{ text: call }, { text: TOOL_TAG.observation(content), env: true }, { text: `\n${boxedAnswerStep(answer)}` }]);
}
