import { readFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { Skill, UnsequencedEvent } from '../core/events.ts';
import { initialSkill } from '../core/tournament/skill-ratings.ts';
import { readJsonl, warnOnStderr } from '../engine/trainer/jsonl-log.ts';
import { pathExists } from '../native/io/files.ts';
import { LEAGUE_STATE_FILE, type LeagueState } from '../lab/tournament/league-state.ts';
import { GAMES_DIR, RATINGS_FILE, STATE_DIR, TOURNAMENT_FILE, UPDATES_FILE, updateMetrics } from '../lab/tournament/run-tournament.ts';
import { leaderboardRows, type RatingsLine } from '../lab/tournament/standings.ts';
import type { UpdateRecord } from '../lab/tournament/train-round.ts';
import type { MetricsPoint } from '../server/wire.ts';

/** A finished (or stopped) tournament as the viewer replays it: what its live run would have published. */
export interface RecordedTournament {
  /** Its name in the viewer: the directory's name (the live tournament's runs are `<name>/<game>`). */
  readonly id: string;
  readonly dir: string;
  /** The game whose run carries the ratings, the payoff table and the leaderboard (the first of the config, as live). */
  readonly first: string | undefined;
  /** Every entrant's rating change, round by round, then the last payoff table and leaderboard. */
  readonly events: readonly UnsequencedEvent[];
  /** Per game: its entrants' updates as curves (x: the update number). */
  readonly metrics: ReadonlyMap<string, readonly MetricsPoint[]>;
}

/** The tournament a run directory is a game of (`<tournament>/games/<game>` beside a tournament.json), or undefined. */
export async function tournamentDirOf(runDir: string): Promise<string | undefined> {
  const games = dirname(resolve(runDir));
  if (basename(games) !== GAMES_DIR) return undefined;
  const dir = dirname(games);
  return (await pathExists(join(dir, TOURNAMENT_FILE))) ? dir : undefined;
}

/**
 * A tournament directory read back: its ratings after every round (ratings.jsonl, each entrant's first point the
 * prior or, for a snapshot, the rating it joined with), the payoff table and leaderboard of its last round
 * (state/league.json), and its updates (updates.jsonl). A tournament stopped before its first round has no state.
 */
export async function loadRecordedTournament(dir: string): Promise<RecordedTournament> {
  const id = basename(resolve(dir));
  const stateFile = join(dir, STATE_DIR, LEAGUE_STATE_FILE);
  const state = (await pathExists(stateFile)) ? (JSON.parse(await readFile(stateFile, 'utf8')) as LeagueState) : undefined;
  const ratings = (await pathExists(join(dir, RATINGS_FILE))) ? await readJsonl<RatingsLine>(join(dir, RATINGS_FILE), warnOnStderr) : [];
  const updates = (await pathExists(join(dir, UPDATES_FILE))) ? await readJsonl<UpdateRecord>(join(dir, UPDATES_FILE), warnOnStderr) : [];
  const events: UnsequencedEvent[] = [];
  if (state) {
    const prior = initialSkill(state.config.ratings);
    // A snapshot joins the pool after the round it was taken in: its first change is in the round after.
    const joined = new Map(state.pool.map((entrant) => [entrant.name, entrant.snapshotOf === undefined ? 0 : (entrant.round ?? 0)]));
    let previous: RatingsLine['overall'] = {};
    for (const line of [...ratings].sort((a, b) => a.step - b.step)) {
      for (const [entrant, after] of Object.entries(line.overall)) {
        if ((joined.get(entrant) ?? 0) >= line.step) continue;
        const before: Skill = previous[entrant] ?? { mu: prior.mu, sigma: prior.sigma };
        const skill = { before: { mu: before.mu, sigma: before.sigma }, after: { mu: after.mu, sigma: after.sigma } };
        events.push({ type: 'rating-change', entrant, before: before.mu - 3 * before.sigma, after: after.ordinal, system: 'openskill μ − 3σ', round: line.step, skill });
      }
      previous = line.overall;
    }
    events.push({ type: 'payoff-table', round: state.round, table: state.payoff.overall });
    events.push({ type: 'standings', round: state.round, rows: leaderboardRows(state) });
  }
  const metrics = new Map<string, MetricsPoint[]>();
  for (const record of updates) {
    const points = metrics.get(record.game) ?? [];
    points.push({ step: record.update, metrics: updateMetrics(record) });
    metrics.set(record.game, points);
  }
  return { id, dir, first: state?.config.games[0]?.game, events, metrics };
}
