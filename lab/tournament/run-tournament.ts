import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { jsonDifferences } from '../../core/json-differences.ts';
import { join } from 'node:path';
import type { Catalog } from '../../core/catalog.ts';
import { fail } from '../../core/errors.ts';
import type { LudusEmitter, Skill } from '../../core/events.ts';
import { deriveSeed, Rng } from '../../core/rng.ts';
import type { PoolEntrant, TournamentFormat } from '../../core/tournament/formats.ts';
import { fixtures, league, roundRobin, swiss } from '../../core/tournament/formats.ts';
import { initialSkill } from '../../core/tournament/skill-ratings.ts';
import { EventStream } from '../../engine/match/event-stream.ts';
import { MatchBroadcast, tokenTexts } from '../../engine/match/match-events.ts';
import { trainingSeeds } from '../../engine/match/match-seeds.ts';
import { appendJsonl, readJsonl, trimJsonlAfter } from '../../engine/trainer/jsonl-log.ts';
import { learnerSettings } from '../../engine/trainer/policy-plan.ts';
import { policyDir } from '../../engine/trainer/run-checkpoint.ts';
import { prepareRunDir, type ResumeMode } from '../../engine/trainer/run-dir.ts';
import { withDirectoryLock } from '../../native/io/dir-lock.ts';
import { TrainConfigSchema, type TrainConfig } from '../../engine/trainer/train-config.ts';
import { OPTIMIZER_FILE, readOptimizer, TOKENIZER_FILE } from '../../engine/trainer/training-checkpoint.ts';
import { RUN_FILE, stepProblems, TRANSCRIPTS_FILE, type RunRecord } from '../../engine/trainer/trainer.ts';
import { transcriptLine } from '../../engine/trainer/transcript-line.ts';
import { pathExists, replaceDirectory, writeFileDurably } from '../../native/io/files.ts';
import { taskByName } from '../../plugins/tasks/registry.ts';
import { pairingResult, roundContests, sideScores, type PlayedLineup } from './contests.ts';
import { EndpointClient } from '../../engine/remote/endpoint-client.ts';
import { EndpointRuntime } from '../../engine/remote/endpoint-runtime.ts';
import { EntrantCache } from './entrant-cache.ts';
import { checkEntrants, sidesOf, type EntrantRecord, type TournamentGame } from './entrants.ts';
import { LEAGUE_STATE_FILE, type LeagueState } from './league-state.ts';
import { roundLineups } from './lineups.ts';
import { LineupDecoders, playLineups, type RoundTable } from './play-round.ts';
import { applyContests, scopeRatings } from './rate-round.ts';
import { leaderboardRows, writeStandings, type RatingsLine, type Standing } from './standings.ts';
import { TournamentConfigSchema, type TournamentConfig } from './tournament-config.ts';
import { trainRound, type UpdateRecord } from './train-round.ts';

export interface TournamentRun {
  /** The tournament directory (see docs/tournaments.md). */
  readonly out: string;
  readonly config: TournamentConfig;
  /** Games, graders and advantage estimators by name (built-ins and the config's plugins). */
  readonly catalog: Catalog;
  /** Continue from `out`'s state (true), start into an empty `out` (false, the default), or either ('if-checkpoint'). */
  readonly resume?: ResumeMode;
  readonly threads?: number;
  /** Stop, as a killed run would, once this many lineups have been played by this call (resumed later). */
  readonly stopAfterLineups?: number;
  /** Live events per game id (matches, its updates); rating changes go to the first game's. */
  readonly events?: Readonly<Record<string, LudusEmitter>>;
  readonly onRound?: (round: number, rounds: number, standings: readonly Standing[]) => void;
}

export interface TournamentResult {
  readonly rounds: number;
  /** False when `stopAfterLineups` cut the run short. */
  readonly finished: boolean;
  readonly standings: readonly Standing[];
  /** The most full weight copies held in memory at once (a base shared by adapters counts once), and the most adapters. */
  readonly loadedPeak: number;
  readonly adaptersPeak: number;
  /** The most bytes of weights held at once (each full copy once, plus every adapter's tensors). */
  readonly weightBytesPeak: number;
  /** Full weight copies this call read from disk (a base its adapters share is read once while any of them is held). */
  readonly weightReads: number;
  /** What this call played: matches, response tokens, and the seconds spent loading entrants and decoding them. */
  readonly played: { readonly matches: number; readonly tokens: number; readonly seconds: number };
}

export const STATE_DIR = 'state';
export const SNAPSHOTS_DIR = 'snapshots';
export const GAMES_DIR = 'games';
export const TOURNAMENT_FILE = 'tournament.json';
export const RATINGS_FILE = 'ratings.jsonl';
export const UPDATES_FILE = 'updates.jsonl';
const STREAM = { pairing: 1, deal: 2 } as const;

/**
 * Tournament-style training: rounds in which the format pairs entrants of the pool, every game's lineups play the
 * same problems from the same seeds, the results are rated (openskill per game and overall, a batch Bradley–Terry
 * fit over the whole payoff table), and every trainable entrant takes its policy-gradient steps on the matches it
 * played; snapshots of trainable entrants join the pool. After every round the league state — pool, ratings, payoff,
 * pairings played, every trainable entrant's weights and AdamW moments — is swapped in atomically, so `resume`
 * continues exactly (a round cut short is played again from its start).
 */
export function runTournament(run: TournamentRun): Promise<TournamentResult> {
  return withDirectoryLock(run.out, 'tournament', () => runTournamentUnlocked(run));
}

async function runTournamentUnlocked(run: TournamentRun): Promise<TournamentResult> {
  const { config, catalog } = run;
  const games = tournamentGames(config, catalog);
  const advantage = catalog.advantageEstimators.create(config.advantage);
  const task = await taskByName(config.task);
  const checked = await checkEntrants(config, games, task);
  const starting: PoolEntrant[] = checked.entrants.map((e) => ({ name: e.name, trainable: e.trainable, snapshot: false }));
  const format = formatFor(config, starting);

  const stateDir = join(run.out, STATE_DIR);
  const resuming = await prepareRunDir(run.out, { resume: run.resume ?? false, state: { dir: STATE_DIR, file: LEAGUE_STATE_FILE } });
  if (!resuming) await rm(join(run.out, SNAPSHOTS_DIR), { recursive: true, force: true });
  const state: LeagueState = resuming ? await loadState(stateDir, config) : freshState(config, checked.entrants);
  const entrantOf = (name: string): EntrantRecord => state.pool.find((e) => e.name === name) ?? fail('POLICY_INVALID', `no entrant "${name}" in the pool`, { entrant: name });
  const cache = new EntrantCache({ copies: config.maxLoaded, adapters: config.maxAdaptersLoaded }, (name) => {
    if (name.endsWith('@start')) {
      const entrant = entrantOf(name.slice(0, -'@start'.length));
      return { dir: entrant.dir, trainable: false, ...(entrant.adapter ? { adapter: entrant.adapter } : {}) };
    }
    const entrant = entrantOf(name);
    if (entrant.endpoint) return undefined;
    const saved = entrant.snapshotOf ? join(run.out, SNAPSHOTS_DIR, name) : (stagedDirs.get(name) ?? (entrant.trainable && trainedDirs.has(name) ? policyDir(stateDir, name) : undefined));
    // A saved adapter is read from its directory, not made afresh from its seed.
    const adapter = entrant.adapter && (saved ? { base: entrant.adapter.base, lora: entrant.adapter.lora } : entrant.adapter);
    return { dir: saved ?? entrant.dir, trainable: entrant.trainable, ...(adapter ? { adapter } : {}) };
  });
  /** Trainable entrants with weights in the state directory, and those trained this round (in the state being written). */
  const trainedDirs = new Set<string>();
  const stagedDirs = new Map<string, string>();
  for (const entrant of resuming ? state.pool : []) {
    if (!entrant.trainable || !(await pathExists(policyDir(stateDir, entrant.name)))) continue;
    trainedDirs.add(entrant.name);
    // Its weight version is its updates so far, so a resumed tournament records the versions an unbroken one would.
    cache.restoreVersion(entrant.name, (await readOptimizer(join(policyDir(stateDir, entrant.name), OPTIMIZER_FILE))).step);
  }

  await mkdir(run.out, { recursive: true });
  if (!resuming) await writeRecords(run.out, config, games, checked.tokenizer.json);
  const files = { ratings: join(run.out, RATINGS_FILE), updates: join(run.out, UPDATES_FILE), transcripts: (game: string) => join(run.out, GAMES_DIR, game, TRANSCRIPTS_FILE) };
  for (const path of [files.ratings, files.updates, ...games.map((g) => files.transcripts(g.id))]) await trimJsonlAfter(path, state.round);

  const decoders = new LineupDecoders(cache, { rows: config.problemsPerRound * config.groupSize, maxLen: checked.maxLen, threads: run.threads });
  const endpoints = new Map(checked.entrants.flatMap((e) => (e.endpoint ? [[e.name, new EndpointClient(e.name, e.endpoint)] as const] : [])));
  const table: RoundTable = {
    cache,
    decoders,
    runtime: endpoints.size > 0 ? new EndpointRuntime(decoders, endpoints, checked.tokenizer) : decoders,
    tokenizer: checked.tokenizer,
    stopTokens: checked.stopTokens,
    sampling: { temperature: config.temperature, topP: config.topP, maxNewTokens: config.maxNewTokens },
    threads: run.threads,
  };
  const streams = new Map(games.map((g) => [g.id, new EventStream(run.events?.[g.id], state.eventSeq[g.id] ?? 0)]));
  const texts = tokenTexts(checked.tokenizer, checked.stopTokens);
  const broadcasts = new Map(games.map((g) => [g.id, new MatchBroadcast(streams.get(g.id)!, g.id, texts)]));
  const title = `${format.name} of ${games.map((g) => g.id).join(' and ')}`;
  let lineupsLeft = run.stopAfterLineups ?? Number.POSITIVE_INFINITY;
  const playing = { matches: 0, tokens: 0, seconds: 0 };
  let last: Standing[] = state.round > 0 ? await writeStandings(run.out, state, await readJsonl<RatingsLine>(files.ratings), title) : [];

  try {
    while (state.round < format.rounds) {
      const round = state.round;
      const pool: PoolEntrant[] = state.pool.map((e) => ({ name: e.name, trainable: e.trainable, snapshot: e.snapshotOf !== undefined }));
      const { pairings, byes } = format.pair({ round, pool, points: state.points, played: state.played, byes: state.byes, payoff: state.payoff.overall, rng: new Rng(deriveSeed(config.seed, round, STREAM.pairing)) });
      const problems = stepProblems(task, { problemsPerStep: config.problemsPerRound, trainProblems: config.trainProblems }, state.cursor);

      const played: PlayedLineup[] = [];
      const seedsOf = new Map<string, ReturnType<typeof trainingSeeds>>();
      for (const [g, game] of games.entries()) {
        const lineups = roundLineups(game, pairings, (entrant, id) => entrantOf(entrant).games.includes(id));
        const seeds = trainingSeeds(deriveSeed(config.seed, g, STREAM.deal), round);
        seedsOf.set(game.id, seeds);
        const started = performance.now();
        const result = await playLineups(table, game, lineups, { problems, copies: config.groupSize, seeds, label: `r${round + 1}` }, {
          broadcast: broadcasts.get(game.id),
          beforeLineup: () => lineupsLeft-- > 0,
        });
        playing.seconds += (performance.now() - started) / 1000;
        for (const { matches } of result ?? []) {
          playing.matches += matches.length;
          playing.tokens += matches.reduce((sum, match) => sum + match.turns.reduce((n, turn) => n + turn.tokens.length, 0), 0);
        }
        if (!result) return { rounds: state.round, finished: false, standings: last, ...memory(cache), played: playing };
        played.push(...result);
      }

      const contests = games.flatMap((game) => roundContests(game, played.filter((p) => p.lineup.game === game.id)));
      const before = skillsOf(state);
      applyContests(contests, state.skills, state.payoff, config.ratings);
      for (const { game, entrant, score } of games.flatMap((game) => sideScores(game, played.filter((p) => p.lineup.game === game.id)))) {
        for (const table of [state.scores.overall, (state.scores.games[game] ??= {})]) {
          const tally = (table[entrant] ??= { total: 0, count: 0 });
          tally.total += score;
          tally.count += 1;
        }
      }
      for (const [a, b] of pairings) {
        const result = pairingResult(contests, a, b);
        state.points[a] = (state.points[a] ?? 0) + (result > 0 ? 1 : result === 0 ? 0.5 : 0);
        state.points[b] = (state.points[b] ?? 0) + (result < 0 ? 1 : result === 0 ? 0.5 : 0);
        state.played.push([a, b]);
      }
      for (const bye of byes) {
        state.points[bye] = (state.points[bye] ?? 0) + 1;
        state.byes.push(bye);
      }
      const first = streams.get(games[0].id)!;
      const after = skillsOf(state);
      for (const entrant of state.pool) {
        const skill = { before: before[entrant.name] ?? after[entrant.name], after: after[entrant.name] };
        first.publish({ type: 'rating-change', entrant: entrant.name, before: ordinalOf(skill.before), after: ordinalOf(skill.after), system: 'openskill μ − 3σ', round: round + 1, skill });
      }
      first.publish({ type: 'payoff-table', round: round + 1, table: structuredClone(state.payoff.overall) });
      first.publish({ type: 'standings', round: round + 1, rows: leaderboardRows(state) });

      await replaceDirectory(stateDir, async (temp) => {
        const { updates, advantages } = await trainRound(
          {
            cache,
            games,
            advantage,
            settings: (name) => learnerSettings(config.entrants.find((e) => e.name === name) ?? {}, config),
            temperature: config.temperature,
            groupSize: config.groupSize,
            rounds: format.rounds,
            padToken: checked.stopTokens[0] ?? 0,
            maxConsecutiveNonFinite: config.maxConsecutiveNonFinite,
            threads: run.threads,
            savedDir: (name) => (trainedDirs.has(name) ? policyDir(stateDir, name) : undefined),
            tokenizerJson: checked.tokenizer.json,
          },
          state,
          played,
          {
            into: (name) => policyDir(temp, name),
            trained: (name) => stagedDirs.set(name, policyDir(temp, name)),
            update: (record) => publishUpdate(streams.get(record.game)!, record),
          },
        );
        if (round + 1 < format.rounds) await takeSnapshots(run.out, config, state, (name) => policyDir(temp, name), round + 1);
        for (const game of games) {
          const lines = played
            .filter((p) => p.lineup.game === game.id)
            .flatMap((p) => p.matches.map((match, i) => ({ ...transcriptLine(round + 1, match, seedsOf.get(game.id)!, config, advantages.get(p)?.[i]), game: game.id, lineup: p.lineup.key })));
          await appendJsonl(files.transcripts(game.id), lines);
        }
        await appendJsonl(files.updates, updates);
        state.round = round + 1;
        state.cursor += config.problemsPerRound;
        state.eventSeq = Object.fromEntries([...streams].map(([game, stream]) => [game, stream.nextSeq]));
        await appendJsonl(files.ratings, [roundRatings(state, games)]);
        await writeFileDurably(join(temp, LEAGUE_STATE_FILE), `${JSON.stringify(state, null, 2)}\n`);
      });
      for (const name of stagedDirs.keys()) trainedDirs.add(name);
      stagedDirs.clear();
      last = await writeStandings(run.out, state, await readJsonl<RatingsLine>(files.ratings), title);
      run.onRound?.(state.round, format.rounds, last);
    }
  } finally {
    await table.decoders.release();
  }
  return { rounds: state.round, finished: true, standings: last, ...memory(cache), played: playing };
}

const memory = (cache: EntrantCache) => ({ loadedPeak: cache.peak, adaptersPeak: cache.peakAdapters, weightReads: cache.weightReads, weightBytesPeak: cache.peakBytes });

/** The config's games from the catalog, each with its sides; a game named twice is refused. */
export function tournamentGames(config: TournamentConfig, catalog: Catalog): TournamentGame[] {
  const grader = catalog.graders.create(config.grader);
  return config.games.map((entry, i) => {
    if (config.games.findIndex((other) => other.game === entry.game) !== i) fail('CONFIG_INVALID', `games: "${entry.game}" is listed twice`, { field: 'games', game: entry.game });
    const game = catalog.games.create(entry.game, { grader, knobs: entry.knobs });
    return { id: entry.game, game, sides: sidesOf(game, entry.sides), swapSeats: entry.swapSeats };
  });
}

function formatFor(config: TournamentConfig, starting: readonly PoolEntrant[]): TournamentFormat {
  const format = config.format;
  switch (format.kind) {
    case 'round-robin':
      if (format.schedule === 'circle' && config.entrants.some((e) => e.snapshotEvery !== undefined)) {
        fail('CONFIG_INVALID', 'format round-robin: the circle schedule plays the entrants of the start only; snapshots need schedule "all"', { field: 'format.schedule' });
      }
      return roundRobin(format, starting);
    case 'swiss':
      if (config.entrants.some((e) => e.snapshotEvery !== undefined)) fail('CONFIG_INVALID', 'format swiss: plays the entrants of the start only; snapshots need a league or a round-robin', { field: 'format' });
      return swiss(format, starting);
    case 'league':
      return league(format, starting);
    case 'fixtures':
      return fixtures(format, starting);
  }
}

function freshState(config: TournamentConfig, entrants: readonly EntrantRecord[]): LeagueState {
  return {
    round: 0,
    cursor: 0,
    config,
    pool: [...entrants],
    skills: { overall: {}, games: {} },
    payoff: { overall: {}, games: {} },
    scores: { overall: {}, games: {} },
    points: {},
    played: [],
    byes: [],
    nonFinite: {},
    estimators: {},
    updates: 0,
    eventSeq: {},
  };
}

/** A resumed tournament must be the same tournament; only its length may change. */
async function loadState(dir: string, config: TournamentConfig): Promise<LeagueState> {
  const state = JSON.parse(await readFile(join(dir, LEAGUE_STATE_FILE), 'utf8')) as LeagueState;
  const strip = (c: TournamentConfig) => JSON.parse(JSON.stringify({ ...TournamentConfigSchema.parse(c), format: { ...c.format, rounds: 0, cycles: 0 } })) as unknown;
  const differences = jsonDifferences(strip(state.config), strip(config));
  if (differences.length > 0) {
    const shown = differences.map((d) => `${d.path} (started with ${d.before}, now ${d.after})`).join('; ');
    fail('CONFIG_INVALID', `${dir}: the tournament was started with a different config: ${shown}; resume with the same one (or start a new --out)`, { dir, fields: differences.map((d) => d.path) });
  }
  return { ...state, config };
}

/** Every entrant's overall skill, μ and σ (the prior's for one that has not played). */
function skillsOf(state: LeagueState): Record<string, Skill> {
  return Object.fromEntries(state.pool.map((e) => {
    const { mu, sigma } = state.skills.overall[e.name] ?? initialSkill(state.config.ratings);
    return [e.name, { mu, sigma }];
  }));
}

/** The conservative rating the leaderboard sorts by. */
const ordinalOf = (skill: Skill): number => skill.mu - 3 * skill.sigma;

function roundRatings(state: LeagueState, games: readonly TournamentGame[]): RatingsLine {
  const names = state.pool.map((e) => e.name);
  const settings = state.config.ratings;
  return {
    step: state.round,
    overall: scopeRatings(names, state.skills.overall, state.payoff.overall, settings),
    games: Object.fromEntries(
      games.map((g) => {
        const entered = state.pool.filter((e) => e.games.includes(g.id)).map((e) => e.name);
        return [g.id, scopeRatings(entered, state.skills.games[g.id] ?? {}, state.payoff.games[g.id] ?? {}, settings)];
      }),
    ),
  };
}

/** Trainable entrants due a snapshot after `round` leave a frozen copy of their new weights (without their moments) in the pool. */
async function takeSnapshots(out: string, config: TournamentConfig, state: LeagueState, newDir: (entrant: string) => string, round: number): Promise<void> {
  for (const entrant of config.entrants) {
    if (!entrant.trainable || entrant.snapshotEvery === undefined || round % entrant.snapshotEvery !== 0) continue;
    const name = `${entrant.name}@${round}`;
    const source = newDir(entrant.name);
    if (state.pool.some((e) => e.name === name) || !(await pathExists(source))) continue;
    const dir = join(out, SNAPSHOTS_DIR, name);
    await replaceDirectory(dir, async (temp) => {
      await cp(source, temp, { recursive: true });
      await rm(join(temp, OPTIMIZER_FILE), { force: true });
    });
    const of = state.pool.find((e) => e.name === entrant.name)!;
    // A snapshot of an adapter entrant is its adapter alone (read from `dir` over the same base).
    const adapter = of.adapter && { base: of.adapter.base, lora: of.adapter.lora };
    state.pool.push({ name, dir, ...(adapter ? { adapter } : {}), trainable: false, games: of.games, snapshotOf: entrant.name, round });
  }
}

/** tournament.json, the shared tokenizer, and per game a run directory `ludus serve` replays (run.json, tokenizer.json, transcripts.jsonl). */
async function writeRecords(out: string, config: TournamentConfig, games: readonly TournamentGame[], tokenizerJson: unknown): Promise<void> {
  await writeFile(join(out, TOURNAMENT_FILE), `${JSON.stringify(config, null, 2)}\n`);
  await writeFile(join(out, TOKENIZER_FILE), JSON.stringify(tokenizerJson));
  for (const { id, game } of games) {
    const dir = join(out, GAMES_DIR, id);
    await mkdir(dir, { recursive: true });
    const record: RunRecord = {
      game: id,
      roles: game.roles,
      policies: config.entrants.map((e) => ({ name: e.name, init: e.init, trainable: e.trainable })),
      config: gameTrainConfig(config, id),
    };
    await writeFile(join(dir, RUN_FILE), `${JSON.stringify(record, null, 2)}\n`);
    await writeFile(join(dir, TOKENIZER_FILE), JSON.stringify(tokenizerJson));
  }
}

/** A game of the tournament as a training config says it: what `ludus serve` rebuilds the game (and its view) from. */
export function gameTrainConfig(config: TournamentConfig, game: string): TrainConfig {
  const entry = config.games.find((g) => g.game === game)!;
  const { plugins, task, grader, advantage, seed, groupSize, temperature, topP, maxNewTokens, schedule, clipLow, clipHigh, weightDecay, maxGradNorm, normalization } = config;
  return TrainConfigSchema.parse({
    game,
    knobs: entry.knobs,
    ...{ plugins, task, grader, advantage, seed, groupSize, temperature, topP, maxNewTokens, schedule, clipLow, clipHigh, weightDecay, maxGradNorm, normalization },
    problemsPerStep: config.problemsPerRound,
    validateEvery: 0,
  });
}

function publishUpdate(stream: EventStream, record: UpdateRecord): void {
  stream.publish({ type: 'train-step', step: record.update, trains: [record.entrant], metrics: updateMetrics(record) });
}

/** An update's numbers as the viewer's curves take them: `policy/<entrant>/<name>`, finite numbers only. */
export function updateMetrics(record: UpdateRecord): Record<string, number> {
  const metrics: Record<string, number> = {};
  for (const [key, value] of Object.entries(record.metrics)) if (typeof value === 'number' && Number.isFinite(value)) metrics[`policy/${record.entrant}/${key}`] = value;
  return metrics;
}
