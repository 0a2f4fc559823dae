import { cp, mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { writeNoiseAdapter } from '../../../lab/tournament/bench/perturbed-copies.ts';
import { ADAPTER_CONFIG_FILE, ADAPTER_WEIGHTS_FILE, readAdapterFiles } from '../../../native/io/adapter.ts';
import { loadCheckpoint } from '../../../native/io/checkpoint.ts';
import { pathExists } from '../../../native/io/files.ts';
import { initAdapter, withAdapter } from '../../../native/model/lora.ts';
import type { Standing } from '../../../lab/tournament/standings.ts';
import type { TournamentConfigInput } from '../../../lab/tournament/tournament-config.ts';
import type { UpdateRecord } from '../../../lab/tournament/train-round.ts';
import { resolveModelDir } from '../../../plugins/policies/default-model.ts';
import { rejection } from '../../support/errors.ts';
import { jsonl } from '../../support/training.ts';
import { baseCopies, playTournament, tinyTournament } from '../../support/tournament.ts';

const BASE = resolveModelDir('default');

/** A frozen adapter in PEFT's layout over the base, its B drawn so it differs from the base; `recorded` rewrites the base it records. */
async function peftAdapter(seed: number, recorded?: string | null): Promise<string> {
  const dir = await writeNoiseAdapter(BASE, join(await mkdtemp(join(tmpdir(), 'ludus-adapter-')), 'adapter'), { seed, initStdB: 0.05, r: 4 });
  if (recorded !== undefined) await editAdapterConfig(dir, { base_model_name_or_path: recorded });
  return dir;
}

const editAdapterConfig = async (dir: string, fields: Record<string, unknown>) =>
  writeFile(join(dir, ADAPTER_CONFIG_FILE), JSON.stringify({ ...JSON.parse(await readFile(join(dir, ADAPTER_CONFIG_FILE), 'utf8')), ...fields }));

const adapterEntrants = (peft: string): TournamentConfigInput['entrants'] => [
  { name: 'base', init: 'default' },
  { name: 'a1', init: 'default', adapter: { r: 4, initStdB: 0.02 }, trainable: true, snapshotEvery: 1, schedule: { lr: 1e-3 } },
  { name: 'a2', init: 'default', adapter: { r: 4, initStdB: 0.02 }, trainable: true, schedule: { lr: 1e-3 } },
  { name: 'peft', init: peft },
];

describe('adapter entrants on one base', () => {
  let peft: string;
  beforeAll(async () => {
    peft = await peftAdapter(5);
  });

  describe('a league of two trainable adapters, a frozen PEFT adapter and the base itself', () => {
    const config = () =>
      tinyTournament({
        entrants: adapterEntrants(peft),
        games: [{ game: 'grpo' }],
        format: { kind: 'league', rounds: 3, opponents: 2 },
        groupSize: 4,
        maxLoaded: 2,
        maxAdaptersLoaded: 2,
      });
    let straight: string;
    let split: string;
    let reads: number;
    let loadedPeak: number;
    let adaptersPeak: number;
    let weightBytesPeak: number;
    beforeAll(async () => {
      const run = await playTournament(config());
      straight = run.out;
      ({ weightReads: reads, loadedPeak, adaptersPeak, weightBytesPeak } = run.result);
      // Round 1 plays 2 lineups for each learner: stop after the first lineup of round 2, then resume.
      const partial = await playTournament(config(), { stopAfterLineups: 5 });
      expect(partial.result).toMatchObject({ finished: false, rounds: 1 });
      split = partial.out;
      await playTournament(config(), { out: split, resume: true });
    }, 600_000);

    it("should read the base's weights once, shared by every adapter and the base entrant, however often adapters are evicted", async () => {
      expect(reads).toBe(1);
      expect(loadedPeak).toBe(1);
      expect(adaptersPeak).toBe(2);
      // One copy of the base and two rank-4 adapters: well under two copies of the base.
      const baseBytes = [...(await loadCheckpoint(BASE)).weights.values()].reduce((sum, t) => sum + t.data.byteLength, 0);
      expect(weightBytesPeak).toBeGreaterThan(baseBytes);
      expect(weightBytesPeak).toBeLessThan(1.2 * baseBytes);
    });

    it('should train each adapter entrant between rounds, saving only its adapter (PEFT layout, base recorded) and its moments', async () => {
      const updates = await jsonl<UpdateRecord>(join(straight, 'updates.jsonl'));
      expect(new Set(updates.map((u) => u.entrant))).toEqual(new Set(['a1', 'a2']));
      for (const name of ['a1', 'a2']) {
        const dir = join(straight, 'state', 'policies', name);
        expect(await pathExists(join(dir, 'model.safetensors'))).toBe(false);
        const saved = await readAdapterFiles(dir);
        expect(saved.baseModel).toBe(BASE);
        expect(saved.lora.r).toBe(4);
        // Trained: the adapter moved from where its seed put it.
        const start = initAdapter(withAdapter((await loadCheckpoint(BASE)).config, saved.lora), await tournamentSeed(straight, name));
        expect([...saved.weights.keys()].sort()).toEqual([...start.keys()].sort());
        expect([...saved.weights].some(([tensor, t]) => t.data.some((v, i) => v !== start.get(tensor)!.data[i]))).toBe(true);
        expect((await stat(join(dir, 'optimizer.safetensors'))).size).toBeLessThan((await stat(join(BASE, 'model.safetensors'))).size / 4);
      }
    });

    it('should leave snapshots of a trainable adapter entrant that are adapters too, small on disk, rated in the pool', async () => {
      const snapshot = join(straight, 'snapshots', 'a1@1');
      expect(await pathExists(join(snapshot, ADAPTER_CONFIG_FILE))).toBe(true);
      expect(await pathExists(join(snapshot, 'model.safetensors'))).toBe(false);
      expect(await pathExists(join(snapshot, 'optimizer.safetensors'))).toBe(false);
      expect((await stat(join(snapshot, ADAPTER_WEIGHTS_FILE))).size).toBeLessThan((await stat(join(BASE, 'model.safetensors'))).size / 4);
      const { standings } = JSON.parse(await readFile(join(straight, 'standings.json'), 'utf8')) as { standings: Standing[] };
      expect(standings.map((s) => s.entrant).sort()).toEqual(['a1', 'a1@1', 'a1@2', 'a2', 'base', 'peft']);
    });

    it('should resume exactly: the same standings, updates, transcripts, adapters and moments as a run never stopped', async () => {
      for (const file of ['standings.json', 'payoff.json', 'ratings.jsonl', 'updates.jsonl', join('games', 'grpo', 'transcripts.jsonl')]) {
        expect(await readFile(join(split, file), 'utf8'), file).toBe(await readFile(join(straight, file), 'utf8'));
      }
      for (const name of ['a1', 'a2']) {
        for (const file of [ADAPTER_WEIGHTS_FILE, 'optimizer.safetensors']) {
          const path = (out: string) => join(out, 'state', 'policies', name, file);
          expect((await readFile(path(split))).equals(await readFile(path(straight))), `${name}/${file}`).toBe(true);
        }
      }
    });
  });

  describe('refused before any match runs', () => {
    const refusal = async (entrants: TournamentConfigInput['entrants']) => {
      const out = await mkdtemp(join(tmpdir(), 'ludus-refused-'));
      const error = await rejection(playTournament(tinyTournament({ entrants, games: [{ game: 'grpo' }], format: { kind: 'round-robin' } }), { out }));
      expect(await pathExists(join(out, 'games'))).toBe(false);
      return error;
    };

    it('should refuse an adapter on another base than the adapters it is batched with (ADAPTER_BASE_MISMATCH)', async () => {
      const [other] = await baseCopies(1);
      const error = await refusal([...adapterEntrants(peft), { name: 'stray', init: other, adapter: { r: 4 } }]);
      expect(error.code).toBe('ADAPTER_BASE_MISMATCH');
      expect(error.message).toContain('"stray"');
    });

    it('should refuse an adapter whose recorded base is not its configured base, or that records none and is given none (ADAPTER_BASE_MISMATCH)', async () => {
      const [other] = await baseCopies(1);
      const elsewhere = await peftAdapter(6, other);
      expect((await refusal([{ name: 'base' }, { name: 'moved', init: elsewhere, base: 'default' }])).code).toBe('ADAPTER_BASE_MISMATCH');
      const orphan = await peftAdapter(7, null);
      expect((await refusal([{ name: 'base' }, { name: 'orphan', init: orphan }])).message).toMatch(/"orphan".*give the base directory as "base"/);
    });

    it("should refuse an adapter whose shapes do not fit its base (ADAPTER_RANK_MISMATCH), or an adapter over an adapter (CONFIG_INVALID)", async () => {
      const broken = await peftAdapter(8);
      await editAdapterConfig(broken, { r: 8 });
      expect((await refusal([{ name: 'base' }, { name: 'broken', init: broken }])).code).toBe('ADAPTER_RANK_MISMATCH');
      expect((await refusal([{ name: 'base' }, { name: 'twice', init: peft, adapter: { r: 4 } }])).code).toBe('CONFIG_INVALID');
    });

    it("should refuse an adapter whose base, or whose own tokenizer.json, reads tokens differently from the game's (TOKENIZER_MISMATCH)", async () => {
      const stranger = join(await mkdtemp(join(tmpdir(), 'ludus-bad-base-')), 'model');
      await cp(BASE, stranger, { recursive: true });
      const tokenizer = JSON.parse(await readFile(join(stranger, 'tokenizer.json'), 'utf8'));
      tokenizer.model.vocab.zz = tokenizer.model.vocab['0'];
      delete tokenizer.model.vocab['0'];
      await writeFile(join(stranger, 'tokenizer.json'), JSON.stringify(tokenizer));
      const onStranger = await refusal([{ name: 'base' }, { name: 'foreign', init: stranger, adapter: { r: 4 } }]);
      expect(onStranger.code).toBe('TOKENIZER_MISMATCH');
      expect(onStranger.message).toContain('"foreign"');
      const relabelled = await peftAdapter(9);
      await cp(join(stranger, 'tokenizer.json'), join(relabelled, 'tokenizer.json'));
      expect((await refusal([{ name: 'base' }, { name: 'relabelled', init: relabelled }])).code).toBe('TOKENIZER_MISMATCH');
    });
  });
});

/** The seed a fresh adapter entrant was initialised from, as the league state records it. */
async function tournamentSeed(out: string, entrant: string): Promise<number> {
  const state = JSON.parse(await readFile(join(out, 'state', 'league.json'), 'utf8')) as { pool: { name: string; adapter?: { seed?: number } }[] };
  return state.pool.find((e) => e.name === entrant)!.adapter!.seed!;
}
