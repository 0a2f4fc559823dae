import { cp, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { pathExists } from '../../../native/io/files.ts';
import { resolveModelDir } from '../../../plugins/policies/default-model.ts';
import type { TournamentConfigInput } from '../../../lab/tournament/tournament-config.ts';
import { expectConfigInvalid, rejection } from '../../support/errors.ts';
import { playTournament, tinyTournament } from '../../support/tournament.ts';

/** A copy of the shipped base whose files `edit` changes. */
async function editedBase(edit: (dir: string) => Promise<void>): Promise<string> {
  const dir = join(await mkdtemp(join(tmpdir(), 'ludus-bad-entrant-')), 'model');
  await cp(resolveModelDir('default'), dir, { recursive: true });
  await edit(dir);
  return dir;
}

const editJson = (dir: string, file: string, change: (json: Record<string, any>) => void) =>
  readFile(join(dir, file), 'utf8').then(async (text) => {
    const json = JSON.parse(text);
    change(json);
    await writeFile(join(dir, file), JSON.stringify(json));
  });

/** The coded error a tournament is refused with, and that it was refused before any match was played or written. */
async function refusal(input: Omit<TournamentConfigInput, 'format'> & Partial<Pick<TournamentConfigInput, 'format'>>) {
  const out = await mkdtemp(join(tmpdir(), 'ludus-refused-'));
  const error = await rejection(playTournament(tinyTournament({ format: { kind: 'round-robin' }, ...input }), { out }));
  expect(await pathExists(join(out, 'games'))).toBe(false);
  return error;
}

describe('a tournament refused before any match runs', () => {
  let otherTokenizer: string;
  let shortContext: string;
  beforeAll(async () => {
    otherTokenizer = await editedBase((dir) =>
      editJson(dir, 'tokenizer.json', (json) => {
        const vocab = json.model.vocab as Record<string, number>;
        vocab.zz = vocab['0'];
        delete vocab['0'];
      }),
    );
    shortContext = await editedBase((dir) => editJson(dir, 'config.json', (json) => void (json.max_position_embeddings = 48)));
  });

  it('should name an entrant whose directory does not exist (POLICY_INVALID)', async () => {
    const error = await refusal({ entrants: [{ name: 'base' }, { name: 'ghost', init: '/no/such/model' }], games: [{ game: 'grpo' }] });
    expect(error.code).toBe('POLICY_INVALID');
    expect(error.message).toContain('"ghost"');
  });

  it("should name an entrant that does not fit the others' tokenizer (TOKENIZER_MISMATCH)", async () => {
    const error = await refusal({ entrants: [{ name: 'base' }, { name: 'stranger', init: otherTokenizer }], games: [{ game: 'tandem' }] });
    expect(error.code).toBe('TOKENIZER_MISMATCH');
    expect(error.message).toContain('"stranger"');
  });

  it('should name an entrant that cannot play a game: its context does not hold a turn (POLICY_INVALID)', async () => {
    const error = await refusal({ entrants: [{ name: 'base' }, { name: 'short', init: shortContext }], games: [{ game: 'grpo' }] });
    expect(error.code).toBe('POLICY_INVALID');
    expect(error.message).toMatch(/"short" cannot play game "grpo"/);
  });

  it('should refuse an entrant entering a game the tournament does not play, and a game not in the catalog (CONFIG_INVALID)', async () => {
    const entrants = [{ name: 'a' }, { name: 'b', games: ['chess'] }];
    expect((await refusal({ entrants, games: [{ game: 'grpo' }] })).message).toContain('enters game "chess"');
    expect((await refusal({ entrants: [{ name: 'a' }, { name: 'b' }], games: [{ game: 'chess' }] })).code).toBe('CONFIG_INVALID');
  });

  it('should refuse a format with too few entrants (CONFIG_INVALID)', async () => {
    expect((await refusal({ entrants: [{ name: 'a' }, { name: 'b' }, { name: 'c' }], games: [{ game: 'grpo' }], format: { kind: 'swiss', rounds: 4 } })).message).toMatch(/repeated pairing/);
    expect((await refusal({ entrants: [{ name: 'a' }, { name: 'b' }], games: [{ game: 'grpo' }], format: { kind: 'league', rounds: 1 } })).message).toMatch(/trainable/);
    expect((await refusal({ entrants: [{ name: 'a' }, { name: 'b', games: ['grpo'] }], games: [{ game: 'grpo' }, { game: 'tandem' }] })).message).toMatch(/"tandem" is entered by 1 entrant/);
  });

  it('should refuse a round wider than 4096 rows, or either factor alone past it, naming the field (CONFIG_INVALID)', () => {
    const entrants = [{ name: 'a' }, { name: 'b' }];
    expectConfigInvalid((input) => tinyTournament({ entrants, games: [{ game: 'grpo' }], format: { kind: 'round-robin' }, ...(input as object) }), [
      [{ problemsPerRound: 128, groupSize: 64 }, 'groupSize'],
      [{ problemsPerRound: 5000 }, 'problemsPerRound'],
      [{ groupSize: 5000 }, 'groupSize'],
    ]);
    expect(tinyTournament({ entrants, games: [{ game: 'grpo' }], format: { kind: 'round-robin' }, problemsPerRound: 64, groupSize: 64 }).groupSize).toBe(64);
  });

  it('should refuse sides that do not split the roles, and two entrants of one name (CONFIG_INVALID)', async () => {
    expect((await refusal({ entrants: [{ name: 'a' }, { name: 'b' }], games: [{ game: 'tandem', sides: [['senior']] }] })).message).toMatch(/role "junior" on 0 sides/);
    expect((await refusal({ entrants: [{ name: 'a' }, { name: 'a' }], games: [{ game: 'grpo' }] })).message).toMatch(/named twice/);
  });
});

describe("a tournament's directory", () => {
  const config = () => tinyTournament({ entrants: [{ name: 'a' }, { name: 'b' }], games: [{ game: 'grpo' }], format: { kind: 'round-robin' } });

  it('should refuse a new tournament into a directory that already holds files (RUN_DIR_NOT_EMPTY)', async () => {
    const out = await mkdtemp(join(tmpdir(), 'ludus-used-'));
    await writeFile(join(out, 'standings.json'), '{}');
    const error = await rejection(playTournament(config(), { out }));
    expect(error.code).toBe('RUN_DIR_NOT_EMPTY');
    expect(error.message).toContain('they are not a run of ludus: give a new or empty --out');
    expect(await pathExists(join(out, 'games'))).toBe(false);
  });

  it('should refuse to resume a directory without a league state (NOTHING_TO_RESUME), naming the file it looked for', async () => {
    const out = await mkdtemp(join(tmpdir(), 'ludus-no-state-'));
    await writeFile(join(out, 'tournament.json'), '{}');
    const error = await rejection(playTournament(config(), { out, resume: true }));
    expect(error.code).toBe('NOTHING_TO_RESUME');
    expect(error.message).toContain(join('state', 'league.json'));
  });
});
