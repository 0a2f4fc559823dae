import { deriveSeed } from '../../core/rng.ts';
import { buildSchedule, type ScheduleSpec } from '../../core/schedules/spec.ts';
import type { Device } from '../../native/ort.ts';
import { Decoder } from '../../native/runtime/decoder.ts';
import { generate } from '../../native/runtime/generate.ts';
import type { Policy } from '../../native/runtime/policy.ts';
import type { Problem } from '../../core/tasks/task.ts';
import type { TextTokenizer } from '../../plugins/tokenizers/hf-tokenizer.ts';
import { promptText, type ChatTemplateMode } from '../../plugins/tokenizers/prompt-text.ts';
import type { Grader } from '../../core/grading/verdict.ts';
import { entryOf } from '../../core/errors.ts';

export interface SamplingSettings {
  temperature: number;
  topP: number;
  maxNewTokens: number;
  stopTokens: readonly number[];
  /** Rows decoded together. */
  batch: number;
  threads?: number;
  device?: Device;
}

/** One graded response. */
export interface GradedRollout {
  prompt: number[];
  /** Response token ids as generated (a final stop token included). */
  tokens: number[];
  /** Author index of each token (0 = the first policy). */
  authors: number[];
  correct: boolean;
  answerPresent: boolean;
}

export interface SampleOptions extends SamplingSettings {
  /** One policy for solo decoding; [senior, junior] for co-decoding under `schedule`. */
  policies: Policy[];
  tokenizer: TextTokenizer;
  problems: readonly Problem[];
  /** Responses per problem. */
  samples: number;
  grade: Grader;
  seed: number;
  /** Prompt through the tokenizer's chat template where it has one (`on`, the default) or always plainly (`off`). */
  chatTemplate?: ChatTemplateMode;
  /** Who writes each token, built afresh for every generate call with the given seed; solo when absent. */
  schedule?: (seed: number) => ScheduleSpec;
  onProgress?: (done: number, total: number) => void;
}

/**
 * `samples` graded responses per problem (problem-major), decoded `batch` rows at a time by one policy or
 * co-decoded by several under a schedule. Chunk c samples with seed deriveSeed(seed, c's first job), so a run replays.
 */
export async function sampleRollouts(options: SampleOptions): Promise<GradedRollout[][]> {
  const { problems, samples, tokenizer } = options;
  const jobs = problems.flatMap((problem, p) => Array.from({ length: samples }, (_, s) => ({ problem, p, s })));
  const out: GradedRollout[][] = problems.map(() => []);
  if (jobs.length === 0) return out;
  const prompts = new Map(problems.map((problem) => [problem.id, tokenizer.encode(promptText(problem, tokenizer, options.chatTemplate))]));
  const longestPrompt = Math.max(...[...prompts.values()].map((p) => p.length));
  const batch = Math.min(options.batch, jobs.length);
  const decoder = await Decoder.create(options.policies, { batch, maxLen: longestPrompt + options.maxNewTokens, threads: options.threads, device: options.device });
  const stops = new Set(options.stopTokens);
  try {
    for (let start = 0; start < jobs.length; start += batch) {
      const chunk = jobs.slice(start, start + batch);
      const rows = chunk.concat(Array.from({ length: batch - chunk.length }, () => chunk[0]));
      const seed = deriveSeed(options.seed, start);
      const rollouts = await generate(
        decoder,
        rows.map((job) => entryOf(prompts, job.problem.id, 'the prompt of problem')),
        {
          maxNewTokens: options.maxNewTokens,
          sampling: { temperature: options.temperature, topK: 0, topP: options.topP },
          seed,
          stopTokens: options.stopTokens,
          ...(options.schedule ? { schedule: buildSchedule(options.schedule(deriveSeed(seed, 1))) } : {}),
        },
      );
      for (const [i, job] of chunk.entries()) {
        const rollout = rollouts[i];
        const kept = rollout.tokens.filter((t) => !stops.has(t));
        const verdict = options.grade(job.problem.answer, tokenizer.decode(kept));
        out[job.p].push({ prompt: rollout.prompt, tokens: rollout.tokens, authors: rollout.authors, correct: verdict.correct, answerPresent: verdict.answer_present });
      }
      options.onProgress?.(Math.min(start + batch, jobs.length), jobs.length);
    }
  } finally {
    await decoder.release();
  }
  return out;
}
