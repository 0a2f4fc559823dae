import { meanPassAtK, powersOfTwoUpTo } from '../../core/metrics/pass-at-k.ts';
import { deriveSeed } from '../../core/rng.ts';
import { Decoder } from '../../native/runtime/decoder.ts';
import { generate } from '../../native/runtime/generate.ts';
import type { Policy } from '../../native/runtime/policy.ts';
import type { Device } from '../../native/ort.ts';
import type { Problem, Split, Task } from '../../core/tasks/task.ts';
import type { TextTokenizer } from '../../plugins/tokenizers/hf-tokenizer.ts';
import type { Grader, Verdict } from '../../core/grading/verdict.ts';
import { entryOf } from '../../core/errors.ts';


export interface SoloEvalOptions {
  policy: Policy;
  tokenizer: TextTokenizer;
  task: Task;
  split: Split;
  problems: number;
  /** Samples per problem (n of the unbiased pass@k estimator). */
  samples: number;
  grade: Grader;
  temperature: number;
  topP: number;
  maxNewTokens: number;
  stopTokens: number[];
  seed: number;
  /** Rows decoded together. */
  batch: number;
  threads?: number;
  device?: Device;
  onProgress?: (done: number, total: number) => void;
}

export interface SoloEvalResult {
  pass_at_k: Record<string, number>;
  n_problems: number;
  samples: number;
  answer_present_rate: number;
  mean_response_tokens: number;
  per_problem: Array<{ id: string; correct: number }>;
}

/** Samples `samples` solutions per problem from one policy and reports pass@k by the unbiased estimator. */
export async function evaluateSolo(options: SoloEvalOptions): Promise<SoloEvalResult> {
  const problems = options.task.problems(options.split, options.problems);
  const jobs = problems.flatMap((problem, p) => Array.from({ length: options.samples }, (_, s) => ({ problem, p, s })));
  const prompts = new Map(problems.map((problem) => [problem.id, options.tokenizer.encode(problem.prompt)]));
  const longestPrompt = Math.max(...[...prompts.values()].map((p) => p.length));
  const batch = Math.min(options.batch, jobs.length);
  const decoder = await Decoder.create([options.policy], { batch, maxLen: longestPrompt + options.maxNewTokens, threads: options.threads, device: options.device });
  const correct = new Array<number>(problems.length).fill(0);
  let present = 0;
  let responseTokens = 0;
  try {
    for (let start = 0; start < jobs.length; start += batch) {
      const chunk = jobs.slice(start, start + batch);
      const rows = chunk.concat(Array.from({ length: batch - chunk.length }, () => chunk[0]));
      const rollouts = await generate(decoder, rows.map((job) => entryOf(prompts, job.problem.id, 'the prompt of problem')), {
        maxNewTokens: options.maxNewTokens,
        sampling: { temperature: options.temperature, topK: 0, topP: options.topP },
        seed: deriveSeed(options.seed, start),
        stopTokens: options.stopTokens,
      });
      for (const [i, job] of chunk.entries()) {
        const verdict = gradeRollout(options, job.problem, rollouts[i].tokens);
        correct[job.p] += verdict.correct ? 1 : 0;
        present += verdict.answer_present ? 1 : 0;
        responseTokens += rollouts[i].tokens.length;
      }
      options.onProgress?.(Math.min(start + batch, jobs.length), jobs.length);
    }
  } finally {
    await decoder.release();
  }
  return {
    pass_at_k: meanPassAtK(correct, options.samples, powersOfTwoUpTo(options.samples)),
    n_problems: problems.length,
    samples: options.samples,
    answer_present_rate: present / jobs.length,
    mean_response_tokens: responseTokens / jobs.length,
    per_problem: problems.map((problem, p) => ({ id: problem.id, correct: correct[p] })),
  };
}

function gradeRollout(options: SoloEvalOptions, problem: Problem, tokens: number[]): Verdict {
  const kept = tokens.filter((t) => !options.stopTokens.includes(t));
  return options.grade(problem.answer, options.tokenizer.decode(kept));
}
