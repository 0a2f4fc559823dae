import { EventEmitter } from 'eventemitter3';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { LudusEmitter, LudusEvent } from '../../../core/events.ts';
import { buildSchedule, scheduleHash } from '../../../core/schedules/spec.ts';
import { Decoder } from '../../../native/runtime/decoder.ts';
import { generate } from '../../../native/runtime/generate.ts';
import { resolveModelDir } from '../../../plugins/policies/default-model.ts';
import { loadPolicy } from '../../../plugins/policies/load-policy.ts';
import type { MetricsLine } from '../../../engine/trainer/metrics-line.ts';
import type { TranscriptLine } from '../../../engine/trainer/transcript-line.ts';
import type { TrainConfigInput } from '../../../engine/trainer/train-config.ts';
import type { TrainerState } from '../../../engine/trainer/trainer-state.ts';
import { RUN_BUDGET_BYTES, RUN_BUDGET_CAP_BYTES } from '../../../native/model/memory.ts';
import { jsonl, runTraining, tinyConfig as tiny } from '../../support/training.ts';

const runTiny = runTraining;

describe('train (the RL loop)', () => {
  // One 4-step run, and the same config stopped after 2 steps then resumed for 2: two runs of one seed (their first
  // two steps must play the same matches) and the resume comparison. The seed check had two 1-step runs of its own.
  describe('having one seed, run 4 steps straight and again stopped after 2', () => {
    const config = tiny({ steps: 4 });
    let straight: { out: string };
    let split: { out: string; result: { steps: number } };
    let splitLines: TranscriptLine[];
    beforeAll(async () => {
      straight = await runTiny(config);
      split = await runTiny(config, { stopAfter: 2 });
      splitLines = await jsonl<TranscriptLine>(join(split.out, 'transcripts.jsonl'));
    });

    it('should play the same matches in both, which replay exactly from their transcript lines', async () => {
      const lines = (await jsonl<TranscriptLine>(join(straight.out, 'transcripts.jsonl'))).filter((line) => line.step <= 2);
      expect(lines).toHaveLength(8);
      expect(splitLines).toEqual(lines);
      const turns = lines.filter((line) => line.step === 1).map((line) => line.turns[0]);
      expect(turns).toHaveLength(4);
      for (const turn of turns) expect(turn.scheduleHash).toBe(scheduleHash(turn.schedule));

      const { policy } = await loadPolicy(resolveModelDir('default'));
      const decoder = await Decoder.create([policy, policy], { batch: 4, maxLen: policy.config.maxPositionEmbeddings, threads: 1 });
      const [first] = lines;
      const replayed = await generate(decoder, turns.map((turn) => turn.promptIds), {
        maxNewTokens: first.sampling.maxNewTokens,
        sampling: { temperature: first.sampling.temperature, topK: 0, topP: first.sampling.topP },
        seed: turns[0].seed,
        stopTokens: policy.config.eosTokenIds,
        schedule: buildSchedule(turns[0].schedule),
        partnerLogprobs: true,
      });
      await decoder.release();
      for (const turn of turns) expect({ tokens: replayed[turn.row].tokens, authors: replayed[turn.row].authors }).toEqual({ tokens: turn.responseIds, authors: turn.authors });
    });

    it('should end, the stopped run resumed for the last 2 steps, with the same weights, optimizer moments and metrics', async () => {
      expect(split.result.steps).toBe(2);
      await runTiny(config, { out: split.out, resume: true });
      for (const file of ['model.safetensors', 'optimizer.safetensors']) {
        const [a, b] = [split.out, straight.out].map((out) => readFile(join(out, 'checkpoint', 'policies', 'senior', file)));
        expect((await a).equals(await b)).toBe(true);
      }
      const withoutTime = (lines: MetricsLine[]) => lines.map(({ seconds: _seconds, ...rest }) => rest);
      expect(withoutTime(await jsonl(join(split.out, 'metrics.jsonl')))).toEqual(withoutTime(await jsonl(join(straight.out, 'metrics.jsonl'))));
    });
  });

  describe('having another seed', () => {
    it('should play other matches', async () => {
      // Both runs draw the same first problem, on which the shipped base, sure of everything but its carries, may
      // write one answer at T = 0.6 whatever the seed: at T = 3 every seed samples its own tokens.
      const [a, b] = [await runTiny(tiny({ steps: 1, seed: 1, temperature: 3 })), await runTiny(tiny({ steps: 1, seed: 2, temperature: 3 }))];
      const responses = async (out: string) => (await jsonl<TranscriptLine>(join(out, 'transcripts.jsonl'))).map((line) => line.turns[0].responseIds);
      expect(await responses(a.out)).not.toEqual(await responses(b.out));
    });
  });

  describe('having a senior share band no tandem match can meet', () => {
    it('should fail closed with AUTHOR_SHARE_OUT_OF_BAND before any update', async () => {
      await expect(runTiny(tiny({ steps: 1, knobs: { shareBand: [0.99, 1] } }))).rejects.toMatchObject({ code: 'AUTHOR_SHARE_OUT_OF_BAND' });
    });
  });

  describe('having each update run in micro-batches of rows', () => {
    it('should make the update of the whole batch in one run, up to float rounding, on the same matches', async () => {
      const config = tiny({ steps: 2, groupSize: 4, checkpointEvery: 2 });
      const [whole, split] = await Promise.all([runTiny({ ...config, microBatchRows: 4 }), runTiny({ ...config, microBatchRows: 2 })]);
      const transcripts = (out: string) => jsonl<TranscriptLine>(join(out, 'transcripts.jsonl'));
      expect((await transcripts(split.out)).map((t) => t.turns)).toEqual((await transcripts(whole.out)).map((t) => t.turns));
      const [a, b] = await Promise.all([whole.out, split.out].map((out) => loadPolicy(join(out, 'checkpoint', 'policies', 'senior'))));
      let moved = 0;
      let worst = 0;
      const initial = await loadPolicy(resolveModelDir('default'));
      for (const [name, t] of a.policy.weights) {
        const other = b.policy.weights.get(name)!.data;
        const start = initial.policy.weights.get(name)!.data;
        for (let i = 0; i < t.data.length; i++) {
          worst = Math.max(worst, Math.abs(other[i] - t.data[i]) / (1e-5 + 1e-4 * Math.abs(t.data[i] - start[i])));
          if (t.data[i] !== start[i]) moved++;
        }
      }
      expect(worst).toBeLessThan(1);
      expect(moved).toBeGreaterThan(0);
      const runs = async (out: string) => (await jsonl<MetricsLine>(join(out, 'metrics.jsonl'))).map((line) => line.policies.senior.micro_batches);
      expect(await runs(whole.out)).toEqual([1, 1]);
      expect((await runs(split.out)).every((n) => n !== null && n > 1)).toBe(true);
    });
  });

  describe('having chosen its run budget from the memory free when it started', () => {
    const stateOf = async (out: string) => JSON.parse(await readFile(join(out, 'checkpoint', 'trainer_state.json'), 'utf8')) as TrainerState;
    it('should record it in the checkpoint and split a resumed run by it, whatever memory is free then', async () => {
      const config = tiny({ steps: 2 });
      try {
        vi.stubEnv('LUDUS_MEMORY_BYTES', String(64 * 2 ** 30));
        const { out } = await runTiny(config, { stopAfter: 1 });
        expect((await stateOf(out)).runBudgetBytes).toBe(RUN_BUDGET_CAP_BYTES);
        vi.stubEnv('LUDUS_MEMORY_BYTES', String(3 * 2 ** 30));
        await runTiny(config, { out, resume: true });
        expect((await stateOf(out)).runBudgetBytes).toBe(RUN_BUDGET_CAP_BYTES);
      } finally {
        vi.unstubAllEnvs();
      }
    });

    it('should resume a checkpoint that recorded none at the 1 GiB it ran at, and refuse a malformed one', async () => {
      const config = tiny({ steps: 2 });
      const { out } = await runTiny(config, { stopAfter: 1 });
      const file = join(out, 'checkpoint', 'trainer_state.json');
      const { runBudgetBytes: _recorded, ...older } = await stateOf(out);
      await writeFile(file, JSON.stringify({ ...older, runBudgetBytes: 'lots' }));
      await expect(runTiny(config, { out, resume: true })).rejects.toMatchObject({ code: 'DATA_INVALID', message: expect.stringContaining('runBudgetBytes') });
      await writeFile(file, JSON.stringify(older));
      await runTiny(config, { out, resume: true });
      expect((await stateOf(out)).runBudgetBytes).toBe(RUN_BUDGET_BYTES);
    });
  });

  describe('having run a few steps', () => {
    it('should write one metrics line per step, publish numbered events and record validation', async () => {
      const events: LudusEvent[] = [];
      const emitter: LudusEmitter = new EventEmitter();
      emitter.on('event', (event) => events.push(event));
      const { out, result } = await runTiny(tiny({ steps: 2, validateEvery: 2, validationProblems: 4 }), { events: emitter });
      const metrics = await jsonl<MetricsLine>(join(out, 'metrics.jsonl'));
      expect(metrics.map((line) => line.step)).toEqual([1, 2]);
      for (const { roles, policies, seats, trains } of metrics) {
        expect({ seats, trains }).toEqual({ seats: { senior: 'senior', junior: 'junior' }, trains: ['senior'] });
        expect(roles.senior.reward_mean).toBeGreaterThanOrEqual(0);
        expect(roles.senior.reward_mean).toBeLessThanOrEqual(1);
        expect(roles.senior.share).toBeGreaterThan(0.05);
        expect(roles.senior.share).toBeLessThan(0.95);
        expect(Number.isFinite(policies.senior.loss)).toBe(true);
        expect(Number.isFinite(policies.senior.grad_norm)).toBe(true);
        expect(policies.senior.kl_to_junior).toBeGreaterThanOrEqual(0);
        expect(roles.senior.response_len).toBeGreaterThan(0);
        expect(policies.senior).toMatchObject({ skipped_nonfinite: 0, clip_frac: expect.any(Number) });
        expect(policies.junior).toBeUndefined();
      }
      expect(metrics[0].policies.senior.kl_to_junior).toBe(0);

      expect(events.map((event) => event.seq)).toEqual(events.map((_, i) => i));
      expect(events.filter((event) => event.type === 'match-start')).toHaveLength(8);
      expect(events.filter((event) => event.type === 'train-step').map((event) => event.type === 'train-step' && event.step)).toEqual([1, 2]);
      expect(events.some((event) => event.type === 'handoff')).toBe(true);

      const [line] = await jsonl<TranscriptLine>(join(out, 'transcripts.jsonl'));
      const [turn] = line.turns;
      const ofMatch = events.filter((event) => 'matchId' in event && event.matchId === line.matchId);
      const streamed = ofMatch.flatMap((event) => (event.type === 'tokens' ? [event] : []));
      expect(ofMatch[0].type).toBe('match-start');
      expect(streamed.map((event) => event.tokens.length)).toEqual(turn.responseIds.map(() => 1));
      expect(streamed.map((event) => event.position)).toEqual(turn.responseIds.map((_, i) => i));
      expect(streamed.map((event) => event.text).join('')).toBe(turn.text);
      expect(ofMatch.map((event) => event.type)).toEqual(expect.arrayContaining(['turn-start', 'turn-end', 'verdict', 'reward', 'advantage', 'match-end']));

      const [validation] = await jsonl<{ step: number; accuracy: number; protocol: string; split: string }>(join(out, 'validation.jsonl'));
      // Checkpoints are selected on the validation split, never on the test problems evaluations report.
      expect(validation).toMatchObject({ step: 2, protocol: 'word-handoff', split: 'validation' });
      expect(result.best).toEqual({ step: 2, accuracy: validation.accuracy, split: validation.split });
      // The run records its prompt rule (the shipped base has no chat template) and where its validation came from.
      const record = JSON.parse(await readFile(join(out, 'run.json'), 'utf8')) as { prompt_rule: string; validation: unknown };
      expect(record.prompt_rule).toBe('plain');
      expect(record.validation).toEqual({ split: 'validation', heldOutOfTrain: 0 });
    });
  });

  describe('having a JSONL task given as train and test files, without a validation file', () => {
    it('should validate on problems held out of its train split, never on its test problems, and say so', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'ludus-jsonl-task-'));
      const rows = (from: number, n: number) => Array.from({ length: n }, (_, i) => JSON.stringify({ problem: `What is ${from + i} plus 1?`, answer: String(from + i + 1) })).join('\n');
      await writeFile(join(dir, 'train.jsonl'), rows(10, 6));
      await writeFile(join(dir, 'test.jsonl'), rows(50, 3));
      await writeFile(join(dir, 'sums.json'), JSON.stringify({ train: 'train.jsonl', test: 'test.jsonl' }));
      const { out } = await runTiny(tiny({ game: 'grpo', task: join(dir, 'sums.json'), model: resolveModelDir('default', 'arithmetic'), steps: 1, groupSize: 2, maxNewTokens: 16, validateEvery: 1, validationProblems: 2 }));
      const [validation] = await jsonl<{ split: string; held_out_of_train: number; problems: number }>(join(out, 'validation.jsonl'));
      expect(validation).toMatchObject({ split: 'validation', held_out_of_train: 2, problems: 2 });
      const record = JSON.parse(await readFile(join(out, 'run.json'), 'utf8')) as { validation: unknown };
      expect(record.validation).toEqual({ split: 'validation', heldOutOfTrain: 2 });
      // The step's problem is the first train problem (10 + 1), not a held-out one (14, 15) nor a test one.
      const [line] = await jsonl<{ answer: string }>(join(out, 'transcripts.jsonl'));
      expect(line.answer).toBe('11');
    });
  });

  describe('having a training set of one problem', () => {
    it('should play that problem at every step, where an unbounded run draws a new one', async () => {
      const prompts = async (overrides: Partial<TrainConfigInput>) => {
        const { out } = await runTiny(tiny({ steps: 2, groupSize: 2, maxNewTokens: 8, ...overrides }));
        const lines = await jsonl<TranscriptLine>(join(out, 'transcripts.jsonl'));
        return [1, 2].map((step) => JSON.stringify(lines.find((line) => line.step === step)!.turns[0].promptIds));
      };
      const [first, second] = await prompts({ trainProblems: 1 });
      expect(second).toBe(first);
      const [fresh, next] = await prompts({});
      expect(fresh).toBe(first);
      expect(next).not.toBe(first);
    });
  });

  describe('having tandem with λ_jun > 0', () => {
    it("should add the junior-imitation term to the same matches' loss (the junior's tokens' NLL is positive)", async () => {
      const run = async (juniorImitation: number) => {
        const { out } = await runTiny(tiny({ steps: 1, groupSize: 2, maxNewTokens: 24, knobs: { juniorImitation, shareBand: [0, 1] } }));
        const [line] = await jsonl<MetricsLine>(join(out, 'metrics.jsonl'));
        return { line, turns: (await jsonl<TranscriptLine>(join(out, 'transcripts.jsonl'))).map((match) => match.turns[0]) };
      };
      const [plain, imitating] = [await run(0), await run(2)];
      expect(imitating.line.roles.senior.reward_mean).toBe(plain.line.roles.senior.reward_mean);
      // Before the first update the senior is the junior, so its NLL of the junior's tokens is what the junior sampled them at.
      const juniorLogprobs = imitating.turns.flatMap((turn) => turn.logprobs.filter((_, t) => turn.authors[t] === 1));
      expect(juniorLogprobs.length).toBeGreaterThan(0);
      const nll = -juniorLogprobs.reduce((a, b) => a + b, 0) / juniorLogprobs.length;
      expect(nll).toBeGreaterThan(0);
      expect(imitating.line.policies.senior.loss! - plain.line.policies.senior.loss!).toBeCloseTo(2 * nll, 4);
    });
  });

  describe('having the KL-Reg game', () => {
    // The k3 run (k3 is the default estimator) serves both tests; it was run twice.
    const config = (klEstimator: string) => tiny({ game: 'kl-reg', steps: 2, knobs: { beta: 0.01, klEstimator } });
    let k3: { out: string };
    beforeAll(async () => {
      k3 = await runTiny(config('k3'));
    });

    it('should report a KL to the junior of 0 before the first update, scored by the junior as the reference', async () => {
      const metrics = await jsonl<MetricsLine>(join(k3.out, 'metrics.jsonl'));
      expect(metrics[0].policies.senior.kl_to_junior).toBeCloseTo(0, 6);
      expect(metrics[1].policies.senior.kl_to_junior).toBeGreaterThan(0);
      expect(metrics[0].roles.senior.share).toBeUndefined();
    });

    it('should train with the exact KL (klEstimator: exact) on the same matches as k3, reporting the full KL instead of its estimate', async () => {
      const exact = await runTiny(config('exact'));
      const [k3Metrics, exactMetrics] = [await jsonl<MetricsLine>(join(k3.out, 'metrics.jsonl')), await jsonl<MetricsLine>(join(exact.out, 'metrics.jsonl'))];
      // Both gradients vanish while the senior is the junior, so the first update and the second step's matches agree.
      const responses = async (out: string) => (await jsonl<TranscriptLine>(join(out, 'transcripts.jsonl'))).map((line) => line.turns.map((turn) => turn.responseIds));
      expect(await responses(exact.out)).toEqual(await responses(k3.out));
      expect(Math.abs(exactMetrics[0].policies.senior.kl_to_junior!)).toBeLessThan(1e-6);
      const [estimated, full] = [k3Metrics[1].policies.senior.kl_to_junior!, exactMetrics[1].policies.senior.kl_to_junior!];
      expect(full).toBeGreaterThan(0);
      expect(full).not.toBeCloseTo(estimated, 9);
    });
  });
});
