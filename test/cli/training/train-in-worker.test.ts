import { EventEmitter } from 'eventemitter3';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { LudusEmitter, LudusEvent } from '../../../core/events.ts';
import type { MetricsLine } from '../../../engine/trainer/metrics-line.ts';
import { TrainConfigSchema } from '../../../engine/trainer/train-config.ts';
import { trainInWorker } from '../../../cli/training/train-in-worker.ts';
import { jsonl, runTraining } from '../../support/training.ts';

// No end-of-run comparison (its default plays 64 held-out problems twice per run; train.test.ts covers it).
const config = TrainConfigSchema.parse({ game: 'tandem', steps: 2, problemsPerStep: 1, groupSize: 4, maxNewTokens: 48, checkpointEvery: 2, validateEvery: 0, finalComparison: 0 });

const lines = (path: string) => jsonl<Record<string, unknown>>(path);

const withoutTimes = (metrics: Record<string, unknown>[]) => metrics.map(({ seconds: _seconds, ...rest }) => rest);

describe('trainInWorker (ludus train behind a worker thread)', () => {
  // The in-process run it is compared with, trained apart: each training has a timeout of its own.
  let inProcess: string;
  beforeAll(async () => {
    inProcess = (await runTraining(config)).out;
  });

  it('should train exactly as in-process, hand back every step and re-emit the numbered events', async () => {

    const out = await mkdtemp(join(tmpdir(), 'ludus-train-worker-'));
    const events: LudusEvent[] = [];
    const emitter: LudusEmitter = new EventEmitter();
    emitter.on('event', (event) => events.push(event));
    const steps: MetricsLine[] = [];
    const training = await trainInWorker({ out, config, threads: 1 }, { events: emitter, onStep: (line) => steps.push(line) });
    const result = await training.done;

    expect(result.steps).toBe(2);
    expect(steps.map((line) => line.step)).toEqual([1, 2]);
    expect(withoutTimes(await lines(join(out, 'metrics.jsonl')))).toEqual(withoutTimes(await lines(join(inProcess, 'metrics.jsonl'))));
    expect(await lines(join(out, 'transcripts.jsonl'))).toEqual(await lines(join(inProcess, 'transcripts.jsonl')));
    expect(events.length).toBeGreaterThan(0);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, i) => i));
    expect(events.filter((event) => event.type === 'train-step')).toHaveLength(2);
    // Watched, the worker streams tokens as decoded: one token per event.
    expect(events.some((event) => event.type === 'tokens' && event.tokens.length === 1)).toBe(true);
  });

  it("should reject with the worker's coded error", async () => {
    const out = await mkdtemp(join(tmpdir(), 'ludus-train-worker-'));
    const missing = TrainConfigSchema.parse({ ...config, model: join(out, 'no-such-model') });
    const training = await trainInWorker({ out, config: missing, threads: 1 });
    await expect(training.done).rejects.toMatchObject({ code: 'POLICY_INVALID', message: expect.stringMatching(/policy "senior": .*no-such-model does not exist/) });
  });
});
