import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { compareReports, directionOf, formatComparison, numericLeaves, REFERENCE_PEER, torchPeerChange, torchPeerOf } from '../../../cli/bench/bench-compare.ts';
import { benchRecord, readRecord, saveRecord } from '../../../cli/bench/bench-record.ts';
import { runLudus } from '../../support/cli.ts';

const OLD = { solo_decode_tok_s: 7304, tandem_over_solo: 0.573, train_step_ms: 380, batch: 64, torch: { decode_ratio: 3.2, train_ratio: 1.84 }, adapters: { rows: [{ tok_s: 100 }] } };
const NEW = { solo_decode_tok_s: 4643, tandem_over_solo: 0.53, train_step_ms: 330, batch: 64, torch: { decode_ratio: 1.98, train_ratio: 1.16 }, adapters: { rows: [{ tok_s: 95 }] }, added: 1 };

describe('bench compare', () => {
  describe('having the direction of a measure by its name', () => {
    it('should take speeds and ratios as higher-better, times and sizes as lower-better, settings as neither', () => {
      expect(['solo_decode_tok_s', 'tandem_over_solo', 'torch.decode_ratio'].map(directionOf)).toEqual(['higher', 'higher', 'higher']);
      expect(['train_step_ms', 'decode_rss_growth_mb', 'cache_mb', 'p99'].map(directionOf)).toEqual(['lower', 'lower', 'lower', 'lower']);
      expect(['batch', 'parameters', 'senior_share'].map(directionOf)).toEqual(['neither', 'neither', 'neither']);
    });
  });

  describe('having two reports of the same bench', () => {
    it('should pair every numeric leaf both hold and flag each move for the worse past 10%, by hand', () => {
      expect([...numericLeaves(OLD).keys()]).toEqual(['solo_decode_tok_s', 'tandem_over_solo', 'train_step_ms', 'batch', 'torch.decode_ratio', 'torch.train_ratio', 'adapters.rows[0].tok_s']);
      const measures = compareReports(OLD, NEW);
      const byPath = Object.fromEntries(measures.map((m) => [m.path, m]));
      expect(byPath.solo_decode_tok_s.ratio).toBeCloseTo(4643 / 7304, 12);
      expect(measures.filter((m) => m.regression).map((m) => m.path)).toEqual(['solo_decode_tok_s', 'torch.decode_ratio', 'torch.train_ratio']);
      // 0.53 / 0.573 = 0.925 and 95 / 100 are within 10%; a faster step is no regression; the batch is a setting.
      expect(byPath.tandem_over_solo.regression).toBe(false);
      expect(byPath.train_step_ms.regression).toBe(false);
      expect(byPath.batch.direction).toBe('neither');
      expect(compareReports(OLD, NEW, 0.05).map((m) => m.regression)).toContain(true);
      expect(compareReports(OLD, NEW, 0.05).find((m) => m.path === 'tandem_over_solo')!.regression).toBe(true);
    });

    it('should not flag ratios against a PyTorch peer that changed between the two, and say why', () => {
      const speedPeer = { ...NEW, torch_peer: 'PyTorch eager written for speed (torch_speed_peer.py)' };
      expect(torchPeerOf(OLD)).toBe(REFERENCE_PEER);
      expect(torchPeerChange(OLD, speedPeer)).toContain('the PyTorch peer changed');
      expect(torchPeerChange(OLD, NEW)).toBeUndefined();
      expect(compareReports(OLD, speedPeer).filter((m) => m.regression).map((m) => m.path)).toEqual(['solo_decode_tok_s']);
      expect(formatComparison(compareReports(OLD, speedPeer), {}, 0.1, [torchPeerChange(OLD, speedPeer)!])).toContain('warning: the PyTorch peer changed (the reference model');
    });

    it('should judge a signed cost by the way it moved: a memory growth falling from -3 to -25 MB is no regression, rising from -3 to +1 is', () => {
      const flagged = (before: number, after: number) => compareReports({ decode_rss_growth_mb: before }, { decode_rss_growth_mb: after })[0].regression;
      expect(flagged(-3.3, -25.1)).toBe(false);
      expect(flagged(-3.3, 1)).toBe(true);
      expect(flagged(10, 10.5)).toBe(false);
      expect(flagged(10, 12)).toBe(true);
    });
  });

  describe('from the command line', () => {
    it('should print both records with their load and commit, and the flagged measures', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'ludus-bench-records-'));
      const oldPath = await saveRecord(dir, { ...(await benchRecord('engine-qwen3-4m', OLD, [0.05, 0.1, 0.2])), date: '2026-12-01T10:00:00.000Z' });
      const newPath = join(dir, 'bare.json');
      await writeFile(newPath, JSON.stringify(NEW));
      expect((await readRecord(oldPath)).record?.quiet).toBe(true);
      const result = await runLudus(['bench', 'compare', oldPath, newPath]);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/old: engine-qwen3-4m 2026-12-01T10:00 commit \S+, quiet \(load 0.05 before\)/);
      expect(result.stdout).toContain('new: a bare report (no machine or load recorded)');
      expect(result.stdout).toMatch(/solo_decode_tok_s\s+7304\s+4643\s+0\.636 {2}<- dropped 36%/);
      expect(result.stdout).toContain('3 measure(s) moved for the worse by more than 10%: solo_decode_tok_s, torch.decode_ratio, torch.train_ratio');
      const json = JSON.parse((await runLudus(['bench', 'compare', oldPath, newPath, '--json'])).stdout) as { regressions: string[] };
      expect(json.regressions).toHaveLength(3);
    });

    it("should print an array's unchanged settings as one line, and every item that moved or is a measure on its own", () => {
      const before = { tokens: [5, 6, 7, 8, 9], score: { logprobs: [-1, -2] }, rows: [{ tok_s: 10 }, { tok_s: 12 }] };
      const after = { tokens: [5, 6, 70, 8, 9], score: { logprobs: [-1, -2] }, rows: [{ tok_s: 10 }, { tok_s: 12 }] };
      const text = formatComparison(compareReports(before, after), {}, 0.1);
      expect(text).toMatch(/\ntokens\[0\.\.1\] +2 items unchanged {2}\(settings\)\n/);
      expect(text).toMatch(/\ntokens\[2\] +7 +70 +10\.000 \(setting\)\n/);
      expect(text).toMatch(/\ntokens\[3\.\.4\] +2 items unchanged/);
      expect(text).toMatch(/\nscore\.logprobs\[0\.\.1\] +2 items unchanged/);
      // Measures in an array are never folded.
      expect(text).toMatch(/\nrows\[0\]\.tok_s +10 +10 +1\.000\n/);
      expect(text).toMatch(/\nrows\[1\]\.tok_s +12 +12 +1\.000\n/);
    });

    it('should refuse a missing file, a file that is not JSON, and two reports with nothing in common, exit 2', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'ludus-bench-records-'));
      const text = join(dir, 'x.json');
      await writeFile(text, 'not json');
      const other = join(dir, 'other.json');
      await writeFile(other, JSON.stringify({ games_tok_s: 1 }));
      const good = join(dir, 'good.json');
      await writeFile(good, JSON.stringify(OLD));
      expect((await runLudus(['bench', 'compare', join(dir, 'absent.json'), good])).stderr).toContain('[FILE_NOT_FOUND]');
      expect((await runLudus(['bench', 'compare', text, good])).stderr).toContain('[DATA_INVALID]');
      const unrelated = await runLudus(['bench', 'compare', other, good]);
      expect(unrelated.code).toBe(2);
      expect(unrelated.stderr).toContain('share no numeric measure');
      expect((await runLudus(['bench', 'compare', good, good, '--threshold', '2'])).stderr).toContain('[INPUT_INVALID] --threshold "2"');
    });
  });
});
