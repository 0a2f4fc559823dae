import { describe, expect, it } from 'vitest';
import { LudusError } from '../../../core/errors.ts';
import { rowAuthorSchedule, type AuthorSchedule } from '../../../core/schedules/author-schedule.ts';
import { adaptedWeights, initAdapter, withAdapter } from '../../../native/model/lora.ts';
import { parseLoraConfig } from '../../../native/model/lora-config.ts';
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

  /** Authors that switch within a row (row r hands over after every r + 1 tokens) and start differently across rows. */
  const switching = (): AuthorSchedule => {
    const written = new Map<number, number>();
    return {
      first: (row) => (written.set(row, 0), row % 2),
      next: (row) => {
        const n = written.get(row)! + 1;
        written.set(row, n);
        return (row + Math.floor(n / (row + 1))) % 2;
      },
    };
  };

  for (const sync of ['lockstep', 'lazy'] as const) {
    for (const partnerLogprobs of [true, false]) {
      it(`co-decodes an adapter and its base in one run per step as two members do (${sync}, partner log-probabilities ${partnerLogprobs ? 'on' : 'off'})`, async () => {
        const senior = adapter('senior', 6);
        const junior: Policy = { name: 'junior', config: base, weights, tokenizerHash: 'test-vocab' };
        const options = { maxNewTokens: 10, sampling: SAMPLING, seed: 0, rowSeeds: seeds, partnerLogprobs };
        const members = await open([senior, junior], { batch: prompts.length, maxLen: 24, threads: 1, sync });
        const stacked = await open([senior, junior], { batch: prompts.length, maxLen: 24, threads: 1, sync, stacked: true, coDecoded: true });
        expect(stacked.stacked).toBe(true);
        const want = await generate(members, prompts, { ...options, schedule: switching() });
        const got = await generate(stacked, prompts, { ...options, schedule: switching() });
        for (const [row, rollout] of got.entries()) {
          expectSame(rollout, want[row]);
          expect(rollout.authors).toEqual(want[row].authors);
          for (const m of [0, 1]) rollout.partnerLogprobs?.[m].forEach((logprob, t) => expect(logprob).toBeCloseTo(want[row].partnerLogprobs![m][t], 4));
        }
        expect(got.every((r) => r.partnerLogprobs !== undefined)).toBe(partnerLogprobs);
        expect(got.some((r) => new Set(r.authors).size === 2)).toBe(true);
        // One run per step (and the prefill), where the members take one each.
        const steps = Math.max(...got.map((r) => r.tokens.length));
        expect(stacked.runs).toBe(steps);
        if (partnerLogprobs && sync === 'lockstep') expect(members.runs).toBe(2 * steps);
        // The senior's adapter changes what is written, so the check above could fail.
        const juniorAlone = await generate(members, prompts, { ...options, schedule: rowAuthorSchedule(prompts.map(() => 1)) });
        expect(juniorAlone.some((r, row) => r.tokens.join() !== got[row].tokens.join())).toBe(true);
      });
    }
  }

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
