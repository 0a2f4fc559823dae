import { fail } from '../../core/errors.ts';
import type { Grader } from '../../core/grading/verdict.ts';
import type { Problem } from '../../core/tasks/task.ts';
import type { Policy } from '../../native/runtime/policy.ts';
import { lastBoxed } from '../../plugins/graders/math/boxed.ts';
import type { TextTokenizer } from '../../plugins/tokenizers/hf-tokenizer.ts';
import type { ChatTemplateMode } from '../../plugins/tokenizers/prompt-text.ts';
import { sampleRollouts, type SamplingSettings } from './sample-rollouts.ts';

/**
 * How often two policies, sampling the same problems on the same seeds, give different final answers (Agon §4 asks
 * for a divergent pair; issue 25: "report how often A and B sample different answers on the same seeds"). On the same
 * seeds the two draw the same random numbers, so identical weights answer identically and every difference is the
 * weights'.
 */
export interface AnswerDivergence {
  readonly problems: number;
  /** Samples per problem, the same seeds on both sides. */
  readonly samples: number;
  /** Problems on which at least one sample's final answer differs. */
  readonly problems_differing: number;
  /** Samples (problem, sample index) whose final answers differ. */
  readonly samples_differing: number;
  readonly problem_share: number;
  readonly sample_share: number;
}

/** A response's final answer: its last `\boxed{}`'s content, trimmed; null when it boxes none (two unboxed answers agree). */
export function finalAnswer(text: string): string | null {
  return lastBoxed(text)?.trim() ?? null;
}

/** Compares two sides' final answers, per problem and per sample, paired by position (problem-major, same seeds). */
export function answerDivergence(a: readonly (readonly (string | null)[])[], b: readonly (readonly (string | null)[])[]): AnswerDivergence {
  if (a.length !== b.length || a.some((answers, p) => answers.length !== b[p].length)) fail('INPUT_INVALID', `answer divergence: the two sides answered ${a.length} and ${b.length} problems with different sample counts; pair them on the same problems and samples`);
  if (a.length === 0) fail('INPUT_INVALID', 'answer divergence: no problem answered');
  const samples = a[0].length;
  if (a.some((answers) => answers.length !== samples)) fail('INPUT_INVALID', 'answer divergence: every problem needs the same number of samples');
  const differing = a.map((answers, p) => answers.filter((answer, s) => answer !== b[p][s]).length);
  const problemsDiffering = differing.filter((n) => n > 0).length;
  const samplesDiffering = differing.reduce((sum, n) => sum + n, 0);
  return {
    problems: a.length,
    samples,
    problems_differing: problemsDiffering,
    samples_differing: samplesDiffering,
    problem_share: problemsDiffering / a.length,
    sample_share: samplesDiffering / (a.length * samples),
  };
}

export interface FinalAnswersOptions extends SamplingSettings {
  readonly policy: Policy;
  readonly tokenizer: TextTokenizer;
  readonly problems: readonly Problem[];
  readonly samples: number;
  readonly grade: Grader;
  readonly seed: number;
  readonly chatTemplate?: ChatTemplateMode;
}

/** One policy's final answers, `samples` per problem (problem-major), sampled alone from the plain prompt on `seed`. */
export async function sampleFinalAnswers(options: FinalAnswersOptions): Promise<(string | null)[][]> {
  const { policy, ...rest } = options;
  const stops = new Set(options.stopTokens);
  const rollouts = await sampleRollouts({ ...rest, policies: [policy] });
  return rollouts.map((problem) => problem.map((rollout) => finalAnswer(options.tokenizer.decode(rollout.tokens.filter((t) => !stops.has(t))))));
}

/** Two policies' final answers on the same problems and seeds, and how often they differ. */
export async function policyDivergence(a: Policy, b: Policy, options: Omit<FinalAnswersOptions, 'policy'>): Promise<AnswerDivergence> {
  return answerDivergence(await sampleFinalAnswers({ ...options, policy: a }), await sampleFinalAnswers({ ...options, policy: b }));
}
