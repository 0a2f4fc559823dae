import { describe, expect, it } from 'vitest';
import { LudusError } from '../../../core/errors.ts';
import { rowAuthorSchedule } from '../../../core/schedules/author-schedule.ts';
import { adaptedWeights, initAdapter, parseLoraConfig, withAdapter } from '../../../native/model/lora.ts';
import { cloneWeights } from '../../../native/model/weights.ts';
import { Decoder } from '../../../native/runtime/decoder.ts';
import { generate, type Rollout } from '../../../native/runtime/generate.ts';
import type { Policy } from '../../../native/runtime/policy.ts';
import { randomModel } from '../../support/models.ts';
import { decoderOpener } from '../../support/decoders.ts';

const SAMPLING = { temperature: 1, topK: 0, topP: 1 };
const prompts = [[3, 17, 42], [8, 1, 30, 9], [5], [11, 12, 13, 14, 15], [7, 7], [20, 21, 22]];
const seeds = prompts.map((_, row) => 1000 + row);

describe('a decoder of stacked adapters (several adapters over one base in one batch)', () => {
  const open = decoderOpener();

  const { config: base, weights } = randomModel({}, 11);
  const lora = parseLoraConfig({ r: 4, initStdB: 0.3 });
  const config = withAdapter(base, lora);
  const adapter = (name: string, seed: number): Policy => ({ name, config, weights: adaptedWeights(weights, initAdapter(config, seed)), tokenizerHash: 'test-vocab' });

  /** Each row's rollout from a decoder holding `policy` alone, rows at the same seeds. */
  const alone = async (policy: Policy, rows: number[]): Promise<Map<number, Rollout>> => {
    const decoder = await open([policy], { batch: rows.length, maxLen: 24, threads: 1 });
    const rollouts = await generate(decoder, rows.map((r) => prompts[r]), { maxNewTokens: 8, sampling: SAMPLING, seed: 0, rowSeeds: rows.map((r) => seeds[r]) });
    return new Map(rows.map((r, i) => [r, rollouts[i]]));
  };
  const expectSame = (got: Rollout, want: Rollout) => {
    expect(got.tokens).toEqual(want.tokens);
    for (const [t, logprob] of want.logprobs.entries()) expect(got.logprobs[t]).toBeCloseTo(logprob, 4);
  };

  for (const sync of ['lockstep', 'lazy'] as const) {
    it(`gives each row the tokens and log-probabilities its adapter gives it decoded alone (${sync})`, async () => {
      const [a, b] = [adapter('A', 1), adapter('B', 2)];
      const authors = [0, 1, 1, 0, 1, 0];
      const stacked = await open([a, b], { batch: prompts.length, maxLen: 24, threads: 1, stacked: true, sync });
      const rollouts = await generate(stacked, prompts, { maxNewTokens: 8, sampling: SAMPLING, seed: 0, rowSeeds: seeds, schedule: rowAuthorSchedule(authors) });
      const rowsOf = (author: number) => authors.flatMap((x, row) => (x === author ? [row] : []));
      const want = new Map([...(await alone(a, rowsOf(0))), ...(await alone(b, rowsOf(1)))]);
      for (const [row, rollout] of rollouts.entries()) {
        expectSame(rollout, want.get(row)!);
        expect(rollout.authors.every((x) => x === authors[row])).toBe(true);
      }
      // The two adapters really differ on these rows, so the check above could fail.
      const swapped = await alone(b, rowsOf(0));
      expect(rowsOf(0).some((row) => swapped.get(row)!.tokens.join() !== rollouts[row].tokens.join())).toBe(true);
    });
  }

  it('sees an adapter changed in place once updatePolicy is called, and a new adapter once the stack is replaced', async () => {
    const [a, b] = [adapter('A', 3), adapter('B', 4)];
    const stacked = await open([a, b], { batch: prompts.length, maxLen: 24, threads: 1, stacked: true });
    const before = await generate(stacked, prompts, { maxNewTokens: 8, sampling: SAMPLING, seed: 0, rowSeeds: seeds, schedule: rowAuthorSchedule(prompts.map(() => 1)) });
    // An optimizer step on B, in place as a learner does it.
    for (const [name, t] of b.weights) if (name.includes('.lora_B.')) for (let i = 0; i < t.data.length; i++) t.data[i] += 0.5 * Math.sin(i + 1);
    await stacked.updatePolicy(1, b);
    const after = await generate(stacked, prompts, { maxNewTokens: 8, sampling: SAMPLING, seed: 0, rowSeeds: seeds, schedule: rowAuthorSchedule(prompts.map(() => 1)) });
    const rows = prompts.map((_, row) => row);
    const want = await alone({ ...b, weights: cloneWeights(b.weights) }, rows);
    for (const row of rows) expectSame(after[row], want.get(row)!);
    expect(after.some((r, row) => r.tokens.join() !== before[row].tokens.join())).toBe(true);

    const c = adapter('C', 5);
    await stacked.setStackedPolicies([c, a]);
    const third = await generate(stacked, prompts, { maxNewTokens: 8, sampling: SAMPLING, seed: 0, rowSeeds: seeds, schedule: rowAuthorSchedule(prompts.map(() => 0)) });
    const wantC = await alone(c, rows);
    for (const row of rows) expectSame(third[row], wantC.get(row)!);
  });

  it('refuses policies that do not share one base, a plain model, and partner distributions', async () => {
    const a = adapter('A', 1);
    const copied: Policy = { ...adapter('B', 2), weights: cloneWeights(a.weights) };
    const refusal = (promise: Promise<unknown>) => promise.then(() => null, (error: unknown) => error);
    for (const policies of [[a, copied], [a, { ...randomModel({}, 11).policy }]]) {
      const error = await refusal(Decoder.create(policies, { batch: 2, maxLen: 8, threads: 1, stacked: true }));
      expect(error).toBeInstanceOf(LudusError);
      expect((error as LudusError).code).toBe('INPUT_INVALID');
    }
    const stacked = await open([a, adapter('B', 2)], { batch: 2, maxLen: 8, threads: 1, stacked: true });
    const error = await refusal(stacked.prefill([[1], [2]], null));
    expect((error as LudusError).message).toMatch(/partner distributions/);
  });
});
