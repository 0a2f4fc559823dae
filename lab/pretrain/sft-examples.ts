import { fail } from '../../core/errors.ts';
import { Rng, deriveSeed } from '../../core/rng.ts';
import type { LabelledSolution, Problem, Task } from '../../core/tasks/task.ts';
import { writeVerification } from '../../plugins/verdicts/step-verdicts.ts';
import { verifierPrompt } from '../../plugins/verdicts/verifier-prompt.ts';
import { challengePrompt, withheldSummary } from '../../plugins/protocols/draft-challenge.ts';
import type { PretrainConfig } from './pretrain-config.ts';
import type { SftExample } from './sft-batch.ts';
import { toolCallExample, type ToolCallMix } from './tool-examples.ts';

/** The tasks of a pretraining run, each with its share of the examples: the main task first. */
export interface SftSource {
  readonly task: Task;
  readonly share: number;
}

type VerificationConfig = NonNullable<PretrainConfig['verification']>;
/** A verification mix as configured; `solutions` and `missRate` as their defaults when absent. */
export type VerificationMix = Omit<VerificationConfig, 'solutions' | 'missRate'> & Partial<Pick<VerificationConfig, 'solutions' | 'missRate'>>;
export type ChallengeMix = NonNullable<PretrainConfig['challenge']>;

/**
 * Seeds what the example at each data position is: its task, whether it is a verification, its slips and flips. A
 * task's own draws at a position must come from another stream, or they repeat the draw that chose the task (the
 * world task once used 11: docs/world-games.md).
 */
const EXAMPLE_STREAM = 11;

/**
 * A verifier's supervised example on one problem: the verifier prompt over the gold solution or a corrupted one, and
 * a judgment of every step (the task's check of the gold step as the reason) and of the whole, each verdict the true
 * label flipped with probability `flip`. The final verdict's truth is whether every step is right (the corrupted
 * solutions of the tasks here always end on a wrong answer).
 */
export function verificationExample(task: Task, problem: Problem, rng: Rng, mix: Omit<VerificationMix, 'share'>, slipRate = 0): SftExample {
  if (mix.solutions === 'slipped') return judgedSlipExample(task, problem, rng, slipRate, mix.missRate ?? 0);
  const { corrupt, stepCheck } = task;
  if (!corrupt || !stepCheck) return fail('CONFIG_INVALID', `pretrain: task "${task.name}" cannot make verifier examples (it has no corrupted solutions or step checks)`, { task: task.name });
  const solution: LabelledSolution = rng.bernoulli(mix.corrupted) ? corrupt(problem, rng) : { solution: problem.solution, steps: problem.steps, stepLabels: problem.steps.map(() => true) };
  const flip = (label: boolean) => (rng.bernoulli(mix.flip) ? !label : label);
  const judgments = solution.steps.map((_, k) => ({ justification: stepCheck(problem, k), correct: flip(solution.stepLabels[k]) }));
  return { prompt: verifierPrompt(problem.prompt, solution.steps), completion: writeVerification(judgments, flip(solution.stepLabels.every(Boolean))) };
}

/** A verification of the base's own slipped solution by a judge that misses each slip at `missRate` (the task's `judgedSlip`). */
function judgedSlipExample(task: Task, problem: Problem, rng: Rng, slipRate: number, missRate: number): SftExample {
  if (!task.judgedSlip) return fail('CONFIG_INVALID', `pretrain: task "${task.name}" cannot judge slipped solutions (verification.solutions "slipped")`, { task: task.name });
  const judged = task.judgedSlip(problem, slipRate, missRate, rng);
  return { prompt: verifierPrompt(problem.prompt, judged.solution.steps), completion: writeVerification(judged.judgments, judged.final) };
}

/**
 * A challenger's example (Agon's 'context' layout): the withheld summary of a draft, the base's own slipped solution,
 * before the problem, answered by a fresh slipped solution drawn apart from the draft.
 */
export function challengeExample(task: Task, problem: Problem, rng: Rng, slipRate: number): SftExample {
  const solve = () => (slipRate > 0 && task.slipped ? task.slipped(problem, slipRate, rng).solution : problem.solution);
  const { summary } = withheldSummary(solve(), { maskMentions: true });
  return { prompt: challengePrompt(summary, problem, 'context'), completion: solve() };
}

/**
 * The example at data position `position` of a mixed run: its task drawn by the shares, then a verification with
 * probability `verification.share`, else a challenge with a `challenge.share` of all examples, else the problem's solution: gold, or the task's slipped walk at `slipRate` where the
 * task has one (a task without a slip, or a verification, is never slipped); with `toolCalls`, the calc game's example
 * on the problem (toolCallExample). A pure function of (seed, position), so a
 * resumed run sees the same data.
 */
export function mixedExample(
  sources: readonly SftSource[],
  verification: VerificationMix | undefined,
  seed: number,
  position: number,
  slipRate = 0,
  challenge?: ChallengeMix,
  toolCalls?: ToolCallMix,
): SftExample {
  const rng = new Rng(deriveSeed(seed, EXAMPLE_STREAM, position));
  const draw = rng.next();
  let cumulative = 0;
  const source = sources.find((s) => (cumulative += s.share) > draw) ?? sources[sources.length - 1];
  const problem = source.task.sample('train', position);
  if (toolCalls) return toolCallExample(problem, rng, toolCalls);
  if (verification && rng.bernoulli(verification.share)) return verificationExample(source.task, problem, rng, verification, slipRate);
  if (challenge && rng.bernoulli(challenge.share / (1 - (verification?.share ?? 0)))) return challengeExample(source.task, problem, rng, slipRate);
  const slipped = slipRate > 0 ? source.task.slipped : undefined;
  return { prompt: problem.prompt, completion: slipped ? slipped(problem, slipRate, rng).solution : problem.solution };
}

/** Whether a config asks for anything beyond its one task's gold solutions. */
export function isMixed(config: Pick<PretrainConfig, 'alsoTasks' | 'verification' | 'challenge' | 'toolCalls'>): boolean {
  return config.alsoTasks.length > 0 || config.verification !== undefined || config.challenge !== undefined || config.toolCalls !== undefined;
}
