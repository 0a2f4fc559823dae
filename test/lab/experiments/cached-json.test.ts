import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCached, writeCached } from '../../../lab/experiments/cached-json.ts';
import { ProgressTracker, type ExperimentProgress } from '../../../lab/experiments/experiment-progress.ts';

describe('readCached', () => {
  describe('having a value cached under one key', () => {
    it('should return it for an equal key only, and nothing where no file is', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'ludus-cache-'));
      const path = join(dir, 'eval', 'base.json');
      expect(await readCached(path, { steps: 2 })).toBeUndefined();
      await writeCached(path, { steps: 2, eval: { samples: 8 } }, { pass: 0.5 });
      expect(await readCached(path, { steps: 2, eval: { samples: 8 } })).toEqual({ pass: 0.5 });
      expect(await readCached(path, { steps: 3, eval: { samples: 8 } })).toBeUndefined();
      expect(await readdir(join(dir, 'eval'))).toEqual(['base.json']);
    });
  });
});

describe('ProgressTracker', () => {
  describe('having a cheap and a costly phase', () => {
    it('should weigh each phase by its rollouts and never go backwards', () => {
      const seen: ExperimentProgress[] = [];
      const tracker = new ProgressTracker([['train', 30], ['eval', 70]], (p) => seen.push(p));
      tracker.update('train', 0.5);
      tracker.update('train', 0.2);
      tracker.update('train', 1);
      tracker.update('eval', 0.5);
      tracker.update('eval', 3);
      expect(seen.map((p) => [p.phase, p.done])).toEqual([['train', 15], ['train', 15], ['train', 30], ['eval', 65], ['eval', 100]]);
      expect(tracker.total).toBe(100);
      expect(() => tracker.update('report', 1)).toThrow(/unknown experiment phase/);
    });
  });
});
