import { join } from 'node:path';
import type { LeaderboardRow } from '../../core/events.ts';
import { initialSkill } from '../../core/tournament/skill-ratings.ts';
import { gamesOf, headToHead, scoreRate, type HeadToHead, type PayoffTable } from '../../core/tournament/payoff.ts';
import { writeFileAtomically } from '../../native/io/files.ts';
import { markdownTable } from '../reports/markdown.ts';
import { linePlot, type LineSeries } from '../reports/plots/line-plot.ts';
import { svgToPng } from '../reports/plots/rasterize.ts';
import type { LeagueState } from './league-state.ts';
import type { EntrantRating, ScopeRatings } from './rate-round.ts';

/** One line of OUT/ratings.jsonl: every entrant's ratings after a round, overall and per game. */
export interface RatingsLine {
  readonly step: number;
  readonly overall: ScopeRatings;
  readonly games: Readonly<Record<string, ScopeRatings>>;
}

export interface Standing {
  readonly rank: number;
  readonly entrant: string;
  readonly trainable: boolean;
  readonly snapshotOf?: string;
  readonly overall: EntrantRating & { readonly elo: number; readonly eloSe: number };
  readonly games: Readonly<Record<string, EntrantRating>>;
  /** Against every opponent together, from the payoff table (fractional with partial play). */
  readonly record: HeadToHead;
  /** Match points (Swiss: a pairing won 1, drawn ½, a bye 1). */
  readonly points: number;
  /** Mean outcome its sides scored, over the matches it played (null before it played), overall and per game. */
  readonly score: number | null;
  readonly gameScores: Readonly<Record<string, number | null>>;
}

/** log-odds → Elo points: 400 / ln 10 per unit, centred on 1500. */
const ELO_PER_LOGIT = 400 / Math.LN10;

export const STANDINGS_FILES = { json: 'standings.json', markdown: 'standings.md', payoffJson: 'payoff.json', payoffMarkdown: 'payoff.md' } as const;
export const PLOTS_DIR = 'plots';

/** The leaderboard after the last round: entrants by the conservative openskill rating μ − 3σ, then by Bradley–Terry strength. */
export function standings(state: LeagueState, last: RatingsLine): Standing[] {
  const rows = state.pool.map((entrant) => {
    const overall = last.overall[entrant.name];
    const record = recordOf(state.payoff.overall, entrant.name);
    return {
      entrant: entrant.name,
      trainable: entrant.trainable,
      ...(entrant.snapshotOf ? { snapshotOf: entrant.snapshotOf } : {}),
      overall: { ...overall, elo: 1500 + ELO_PER_LOGIT * overall.bt.theta, eloSe: ELO_PER_LOGIT * overall.bt.se },
      games: Object.fromEntries(Object.entries(last.games).flatMap(([game, ratings]) => (ratings[entrant.name] ? [[game, ratings[entrant.name]]] : []))),
      record,
      points: state.points[entrant.name] ?? 0,
      score: meanOf(state.scores.overall[entrant.name]),
      gameScores: Object.fromEntries(Object.keys(last.games).map((game) => [game, meanOf(state.scores.games[game]?.[entrant.name])])),
    };
  });
  rows.sort((a, b) => b.overall.ordinal - a.overall.ordinal || b.overall.bt.theta - a.overall.bt.theta || a.entrant.localeCompare(b.entrant));
  return rows.map((row, i) => ({ rank: i + 1, ...row }));
}

/** An entrant's results against every opponent together, from the payoff table. */
function recordOf(payoff: PayoffTable, entrant: string): HeadToHead {
  return Object.keys(payoff[entrant] ?? {}).reduce(
    (sum, opponent) => {
      const h = headToHead(payoff, entrant, opponent);
      return { wins: sum.wins + h.wins, draws: sum.draws + h.draws, losses: sum.losses + h.losses };
    },
    { wins: 0, draws: 0, losses: 0 },
  );
}

/**
 * The leaderboard the viewer shows after a round: every entrant of the pool by μ − 3σ (the prior's for one that has
 * not played), with μ, σ, the games it played and its record.
 */
export function leaderboardRows(state: LeagueState): LeaderboardRow[] {
  const rows = state.pool.map((entrant) => {
    const { mu, sigma } = state.skills.overall[entrant.name] ?? initialSkill(state.config.ratings);
    const record = recordOf(state.payoff.overall, entrant.name);
    return { entrant: entrant.name, mu, sigma, ordinal: mu - 3 * sigma, games: gamesOf(record), ...record, trainable: entrant.trainable, ...(entrant.snapshotOf ? { snapshotOf: entrant.snapshotOf } : {}) };
  });
  rows.sort((a, b) => b.ordinal - a.ordinal || a.entrant.localeCompare(b.entrant));
  return rows.map((row, i) => ({ rank: i + 1, ...row }));
}

/**
 * Writes the standings (JSON and markdown), the payoff tables (JSON and markdown matrices of score rates) and the
 * rating trajectories with their uncertainty bands (SVG and PNG), each file atomically.
 */
export async function writeStandings(out: string, state: LeagueState, history: readonly RatingsLine[], title: string): Promise<Standing[]> {
  const last = history[history.length - 1];
  const table = standings(state, last);
  const games = Object.keys(last.games);
  await writeFileAtomically(join(out, STANDINGS_FILES.json), `${JSON.stringify({ round: state.round, standings: table }, null, 2)}\n`);
  const header = ['rank', 'entrant', 'μ − 3σ', 'μ ± σ', 'Bradley–Terry Elo ± SE', 'W–D–L', 'points', 'mean score', ...games.flatMap((g) => [`${g} μ − 3σ`, `${g} score`])];
  const rows = table.map((s) => [
    String(s.rank),
    `${s.entrant}${s.trainable ? ' (trains)' : ''}${s.snapshotOf ? ` (snapshot of ${s.snapshotOf})` : ''}`,
    s.overall.ordinal.toFixed(2),
    `${s.overall.mu.toFixed(2)} ± ${s.overall.sigma.toFixed(2)}`,
    `${s.overall.elo.toFixed(0)} ± ${s.overall.eloSe.toFixed(0)}`,
    `${count(s.record.wins)}–${count(s.record.draws)}–${count(s.record.losses)}`,
    count(s.points),
    s.score === null ? '—' : s.score.toFixed(3),
    ...games.flatMap((g) => [s.games[g] ? s.games[g].ordinal.toFixed(2) : '—', s.gameScores[g] === null || s.gameScores[g] === undefined ? '—' : s.gameScores[g]!.toFixed(3)]),
  ]);
  await writeFileAtomically(
    join(out, STANDINGS_FILES.markdown),
    `# ${title}: standings after round ${state.round}\n\nSorted by the conservative openskill rating μ − 3σ (overall). Bradley–Terry: one batch fit over every result so far (order-free), on the Elo scale (1500 + 400/ln 10 · θ), ± 1 SE.\n\n${markdownTable(header, rows)}\n`,
  );
  const entrants = table.map((s) => s.entrant);
  await writeFileAtomically(join(out, STANDINGS_FILES.payoffJson), `${JSON.stringify({ round: state.round, entrants, overall: state.payoff.overall, games: state.payoff.games }, null, 2)}\n`);
  const matrices = [['overall', state.payoff.overall] as const, ...Object.entries(state.payoff.games)].map(([scope, payoff]) => `## ${scope}\n\n${payoffMatrix(entrants, payoff)}\n`);
  await writeFileAtomically(
    join(out, STANDINGS_FILES.payoffMarkdown),
    `# ${title}: payoff after round ${state.round}\n\nRow against column: score rate (wins + ½ draws over games) and games (fractional where partners shared a response).\n\n${matrices.join('\n')}`,
  );
  await writePlots(join(out, PLOTS_DIR), history, title);
  return table;
}

function payoffMatrix(entrants: readonly string[], payoff: PayoffTable): string {
  const rows = entrants.map((a) => [
    a,
    ...entrants.map((b) => {
      if (a === b) return '—';
      const h = headToHead(payoff, a, b);
      const rate = scoreRate(h);
      return rate === undefined ? '' : `${rate.toFixed(2)} (${count(gamesOf(h))})`;
    }),
  ]);
  return markdownTable(['', ...entrants], rows);
}

async function writePlots(dir: string, history: readonly RatingsLine[], title: string): Promise<void> {
  const scopes: [string, (line: RatingsLine) => ScopeRatings | undefined][] = [
    ['overall', (line) => line.overall],
    ...Object.keys(history[history.length - 1].games).map((game): [string, (line: RatingsLine) => ScopeRatings | undefined] => [game, (line) => line.games[game]]),
  ];
  for (const [scope, pick] of scopes) {
    const entrants = [...new Set(history.flatMap((line) => Object.keys(pick(line) ?? {})))];
    const series = (value: (r: EntrantRating) => { y: number; lo: number; hi: number }): LineSeries[] =>
      entrants.map((entrant) => ({
        label: entrant,
        points: history.flatMap((line) => {
          const rating = pick(line)?.[entrant];
          return rating ? [{ x: line.step, ...value(rating) }] : [];
        }),
      }));
    const figures = [
      {
        name: `openskill-${scope}`,
        svg: linePlot(
          series((r) => ({ y: r.mu, lo: r.mu - r.sigma, hi: r.mu + r.sigma })),
          { title: `${title}: openskill μ, ${scope}`, subtitle: 'Weng–Lin (Plackett–Luce) skill after each round; bands ±1σ', xLabel: 'round', yLabel: 'μ' },
        ),
      },
      {
        name: `bradley-terry-${scope}`,
        svg: linePlot(
          series((r) => ({ y: 1500 + ELO_PER_LOGIT * r.bt.theta, lo: 1500 + ELO_PER_LOGIT * (r.bt.theta - r.bt.se), hi: 1500 + ELO_PER_LOGIT * (r.bt.theta + r.bt.se) })),
          { title: `${title}: Bradley–Terry, ${scope}`, subtitle: 'batch fit over every result so far after each round, Elo scale; bands ±1 SE', xLabel: 'round', yLabel: 'Elo' },
        ),
      },
    ];
    for (const { name, svg } of figures) {
      await writeFileAtomically(join(dir, `${name}.svg`), svg);
      await writeFileAtomically(join(dir, `${name}.png`), svgToPng(svg, 1440));
    }
  }
}

const meanOf = (tally: { total: number; count: number } | undefined): number | null => (tally && tally.count > 0 ? tally.total / tally.count : null);

const count = (value: number): string => (Number.isInteger(value) ? String(value) : value.toFixed(2));
