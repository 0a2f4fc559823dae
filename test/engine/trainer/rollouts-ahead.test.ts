import { describe, expect, it } from 'vitest';
import { LudusError } from '../../../core/errors.ts';
import type { PlayedMatch } from '../../../engine/match/played-match.ts';
import { checkRolloutsAhead, checkRowAges, RolloutsAhead } from '../../../engine/trainer/rollouts-ahead.ts';
import { TrainConfigSchema } from '../../../engine/trainer/train-config.ts';

describe('RolloutsAhead', () => {
  /** The steps whose sampling started, in order, with their data cursors. */
  const sampler = () => {
    const started: [number, number][] = [];
    return { started, sample: (step: number, cursor: number) => (started.push([step, cursor]), { rotation: step, seeds: { base: step } as never, matches: Promise.resolve([]) }) };
  };

  it('should start nothing ahead at 0: each step samples when it is taken', () => {
    const { started, sample } = sampler();
    const ahead = new RolloutsAhead(0, sample, () => false);
    for (let step = 0; step < 3; step++) {
      ahead.take(step, step * 2);
      ahead.fill(step, step * 2, 2, 3);
    }
    expect(started).toEqual([[0, 0], [1, 2], [2, 4]]);
  });

  it('should start the next k steps as soon as a step is taken, each from its own cursor, and hand them over in order', () => {
    const { started, sample } = sampler();
    const ahead = new RolloutsAhead(2, sample, () => false);
    expect(ahead.take(0, 0).rotation).toBe(0);
    ahead.fill(0, 0, 4, 10);
    expect(started).toEqual([[0, 0], [1, 4], [2, 8]]);
    expect(ahead.take(1, 4).rotation).toBe(1);
    ahead.fill(1, 4, 4, 10);
    expect(started.at(-1)).toEqual([3, 12]);
  });

  it('should start nothing past a step that ends with a checkpoint, nor past the last step', () => {
    const { started, sample } = sampler();
    // Checkpoints after steps 1 and 3 (0-based 1 and 3 end with a save): 0 → 1 may overlap, 1 → 2 may not.
    const ahead = new RolloutsAhead(1, sample, (step) => step === 1 || step === 3);
    const order: number[] = [];
    for (let step = 0; step < 4; step++) {
      order.push(ahead.take(step, step).rotation as number);
      ahead.fill(step, step, 1, 4);
      order.push(started.length);
    }
    expect(order).toEqual([0, 2, 1, 2, 2, 4, 3, 4]);
  });
});

describe('checkRowAges', () => {
  const match = (versions: number[]): PlayedMatch =>
    ({ matchId: 'm-1', turns: [{ authorRoles: ['senior', 'junior'], origin: { versions } }] }) as unknown as PlayedMatch;
  const seats = { senior: 'alice', junior: 'bob' };

  it('should pass rows at most k versions behind and refuse an older one with TRAJECTORY_INVALID, naming the versions', () => {
    expect(() => checkRowAges([match([4, 0])], seats, 'alice', 5, 1)).not.toThrow();
    expect(() => checkRowAges([match([5, 0])], seats, 'alice', 5, 0)).not.toThrow();
    const error = (() => {
      try {
        checkRowAges([match([3, 0])], seats, 'alice', 5, 1);
      } catch (e) {
        return e;
      }
    })();
    expect(LudusError.is(error, 'TRAJECTORY_INVALID')).toBe(true);
    expect((error as Error).message).toMatch(/sampled by version 3, 2 behind the learner's 5, more than rolloutsAhead 1/);
    // The frozen partner's version is not the trained policy's.
    expect(() => checkRowAges([match([5, 0])], seats, 'alice', 5, 0)).not.toThrow();
  });
});

describe('checkRolloutsAhead', () => {
  const parse = (input: Record<string, unknown>) => TrainConfigSchema.parse({ game: 'grpo', ...input });
  const servers = { dialect: 'vllm', servers: ['http://127.0.0.1:9'] };

  it('should refuse rollouts ahead with the in-process decoders, and with weights replaced in full, saying why', () => {
    expect(() => checkRolloutsAhead(parse({ rolloutsAhead: 0 }))).not.toThrow();
    expect(() => checkRolloutsAhead(parse({ rolloutsAhead: 1 }))).toThrow(/in-process decoders read the very weights the learner updates/);
    expect(() => checkRolloutsAhead(parse({ rolloutsAhead: 1, rolloutServers: { ...servers, sync: 'full' } }))).toThrow(/replaces the served weights under the requests still sampling/);
    expect(() => checkRolloutsAhead(parse({ rolloutsAhead: 1, rolloutServers: servers }))).not.toThrow();
  });
});
