import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { crc32c, EVENT_FILE_PREFIX, TensorBoardLog } from '../../../native/io/tensorboard.ts';
import { readEventFile } from '../../support/tensorboard-reader.ts';

describe('crc32c', () => {
  it('should give the published check values (RFC 3720 B.4, and "123456789")', () => {
    expect(crc32c(new TextEncoder().encode('123456789'))).toBe(0xe3069283);
    expect(crc32c(new Uint8Array(32))).toBe(0x8a9136aa);
    expect(crc32c(new Uint8Array(32).fill(0xff))).toBe(0x62a8ab43);
    expect(crc32c(Uint8Array.from({ length: 32 }, (_, i) => i))).toBe(0x46dd794e);
  });
});

describe('TensorBoardLog', () => {
  describe('having a new run, then the same run resumed at step 1', () => {
    it('should write event files that an independent reader decodes: version, scalars per step, and the restart marker', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'ludus-tb-'));
      const first = await TensorBoardLog.open(dir, { startOver: true, step: 0, now: () => 1_000_000 });
      await first.scalars(1, { 'role/senior/reward_mean': 0.25, 'policy/senior/loss': -0.5, skipped: Number.NaN }, 1000.5);
      await first.scalars(2, { 'role/senior/reward_mean': 0.75 }, 1001.5);
      const events = await readEventFile(first.file);
      expect(events).toEqual([
        { wallTime: 1000, step: 0, fileVersion: 'brain.Event:2' },
        { wallTime: 1000.5, step: 1, scalars: { 'role/senior/reward_mean': 0.25, 'policy/senior/loss': -0.5 } },
        { wallTime: 1001.5, step: 2, scalars: { 'role/senior/reward_mean': 0.75 } },
      ]);
      const resumed = await TensorBoardLog.open(dir, { startOver: false, step: 1, now: () => 2_000_000 });
      expect((await readEventFile(resumed.file)).slice(1)).toEqual([{ wallTime: 2000, step: 1, sessionStatus: 1 }]);
      expect((await readdir(dir)).filter((name) => name.startsWith(EVENT_FILE_PREFIX))).toHaveLength(2);
      await TensorBoardLog.open(dir, { startOver: true, step: 0 });
      expect((await readdir(dir)).filter((name) => name.startsWith(EVENT_FILE_PREFIX))).toHaveLength(1);
    });
  });
});
