import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { composePlugins } from '../../../composition/compose.ts';
import { advantageFor, gameFor } from '../../../engine/trainer/run-pieces.ts';
import { TrainConfigSchema } from '../../../engine/trainer/train-config.ts';
import type { TranscriptLine } from '../../../engine/trainer/transcript-line.ts';
import type { MetricsLine } from '../../../engine/trainer/metrics-line.ts';
import { train } from '../../../engine/trainer/trainer.ts';

/**
 * test/fixtures/pinned-runs/<game>.json pin three short runs (3 steps of 2 problems × 4 matches, validation at step
 * 2, one thread): a change to the trainer must play the same matches and take the same updates, tokens exactly,
 * numbers to float precision. They were first written by the single-policy trainer, which the multi-policy redesign
 * reproduced; they were rewritten (`regenerate.ts` beside them) when the shipped base and the task's prompts changed,
 * and kl-reg's when its pin turned out blind to the KL term (senior and junior started equal, every KL below 1e-4):
 * its senior now starts as a LoRA adapter (initStdB 0.05) over the junior's base, with β = 0.1.
 */
interface Pinned {
  config: Record<string, unknown>;
  metrics: Record<string, number | null>[];
  validation: Record<string, unknown>[];
  transcripts: {
    step: number;
    matchId: string;
    promptIds: number[];
    responseIds: number[];
    authors: number[];
    roles: string[];
    logprobs: number[];
    outcome: Record<string, number>;
    correct: boolean;
    answer_present: boolean;
    finish: string;
    scheduleHash: string;
  }[];
}

const jsonl = async <T>(path: string): Promise<T[]> =>
  (await readFile(path, 'utf8'))
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as T);

// Float precision: float32 GEMMs that read the weights as inputs (not prepacked initializers) and gradients summed in
// another order agree with the pinned run to ~1e-5 relative after three steps; tokens must still match exactly.
const close = (actual: number | null | undefined, expected: number | null) => {
  if (expected === null) expect(actual ?? null).toBeNull();
  else expect(Math.abs(actual! - expected)).toBeLessThanOrEqual(1e-4 * Math.max(1, Math.abs(expected)));
};

describe('the multi-policy trainer', () => {
  describe.each(['tandem', 'grpo', 'kl-reg'])('having the pinned %s run', (game) => {
    it('should reproduce its metrics, validation and transcripts', async () => {
      const pinned = JSON.parse(await readFile(new URL(`../../fixtures/pinned-runs/${game}.json`, import.meta.url), 'utf8')) as Pinned;
      const config = TrainConfigSchema.parse(pinned.config);
      const catalog = await composePlugins();
      const out = await mkdtemp(join(tmpdir(), 'ludus-pinned-'));
      await train({ out, config, game: gameFor(catalog, config), advantage: advantageFor(catalog, config), threads: 1 });

      const metrics = await jsonl<MetricsLine>(join(out, 'metrics.jsonl'));
      expect(metrics).toHaveLength(pinned.metrics.length);
      metrics.forEach((line, i) => {
        const old = pinned.metrics[i];
        const senior = line.roles.senior;
        const policy = line.policies.senior;
        expect(line.step).toBe(old.step);
        close(senior.reward_mean, old.reward_mean);
        close(senior.answer_present, old.answer_present);
        close(senior.share ?? null, old.senior_share);
        close(senior.response_len, old.response_len);
        expect(senior.zero_variance_groups).toBe(old.zero_variance_groups);
        close(policy.loss, old.loss);
        close(policy.grad_norm, old.grad_norm);
        close(policy.clip_frac, old.clip_frac);
        close(policy.kl_to_junior ?? null, old.kl_to_junior);
        close(policy.lr, old.lr);
        expect(policy.skipped_nonfinite).toBe(old.skipped_nonfinite);
      });

      if (game === 'kl-reg') {
        // The pin must see its KL term: the senior starts as an adapter over the junior's base, so every KL is far above
        // the comparison floor, and at a step where every group had zero variance the loss is β · KL alone.
        const beta = (config.knobs as { beta: number }).beta;
        for (const old of pinned.metrics) expect(old.kl_to_junior!).toBeGreaterThan(100 * 1e-4);
        const flat = metrics.filter((line) => line.roles.senior.zero_variance_groups === config.problemsPerStep);
        expect(flat.length).toBeGreaterThan(0);
        for (const line of flat) close(line.policies.senior.loss, beta * line.policies.senior.kl_to_junior!);
        // There the policy-gradient term is 0 (every advantage is), so at β = 0 the gradient would be exactly 0: the
        // update these steps take is the KL term's alone, and it is well above the comparison floor.
        for (const line of flat) expect(line.policies.senior.grad_norm!).toBeGreaterThan(10 * 1e-4);
        // Its best policy is kept as the checkpoint keeps it: the adapter in PEFT's layout (a full save refused it).
        expect((await readdir(join(out, 'best', 'senior'))).sort()).toEqual(['adapter_config.json', 'adapter_model.safetensors', 'tokenizer.json']);
      }

      const validation = await jsonl<Record<string, unknown>>(join(out, 'validation.jsonl'));
      // The labels (role, policy, how the answer was written) are checked where they are made; the pins hold the numbers.
      expect(validation.map(({ role: _role, policy: _policy, written: _written, ...rest }) => rest)).toEqual(pinned.validation);

      const transcripts = await jsonl<TranscriptLine>(join(out, 'transcripts.jsonl'));
      expect(transcripts).toHaveLength(pinned.transcripts.length);
      transcripts.forEach((line, i) => {
        const old = pinned.transcripts[i];
        const [turn] = line.turns;
        expect(line.turns).toHaveLength(1);
        expect({ step: line.step, matchId: line.matchId, outcome: line.outcome, finish: turn.finish, scheduleHash: turn.scheduleHash }).toEqual({
          step: old.step,
          matchId: old.matchId,
          outcome: old.outcome,
          finish: old.finish,
          scheduleHash: old.scheduleHash,
        });
        expect({ promptIds: turn.promptIds, responseIds: turn.responseIds, authors: turn.authors, roles: turn.roles }).toEqual({
          promptIds: old.promptIds,
          responseIds: old.responseIds,
          authors: old.authors,
          roles: old.roles,
        });
        turn.logprobs.forEach((logprob, t) => close(logprob, old.logprobs[t]));
        expect({ correct: line.verdicts[0].correct, answer_present: line.verdicts[0].answer_present }).toEqual({ correct: old.correct, answer_present: old.answer_present });
      });
    });
  });
});
