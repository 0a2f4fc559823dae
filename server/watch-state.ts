import { validationMetrics } from '../engine/trainer/metrics-line.ts';
import type { LeaderboardRow, RunSummary } from '../core/events.ts';
import type { PayoffTable } from '../core/tournament/payoff.ts';
import { matchRow, passes, type MatchRow } from './match-index.ts';
import type { LiveMatch, MatchFilter, MatchPage, MatchSummary, MetricsPoint, RatingHistory, RunInfo, Snapshot, WireEvent } from './wire.ts';

/** A run's finished matches that the hub does not hold itself: a recorded run's, read back from its transcripts. */
export interface MatchArchive {
  summaries(): readonly MatchSummary[];
  events(matchId: string): readonly WireEvent[] | undefined;
  /** The match in a few events (its start, each turn's whole text, the verdicts): what its list row and search read. */
  digest(matchId: string): readonly WireEvent[] | undefined;
}

export interface WatchStateLimits {
  /** Finished matches kept with their events, over all live runs. */
  readonly finishedMatches: number;
  /** Matches in flight at once; the oldest is forgotten past it. */
  readonly liveMatches: number;
  /** Train-step metrics kept per run. */
  readonly metricsPerRun: number;
  /** Finished matches of a live run the list can find (summaries and their searchable text; the oldest go first). */
  readonly listedPerRun: number;
  /** Ratings kept per entrant (one per round). */
  readonly ratingsPerEntrant: number;
}

export const DEFAULT_WATCH_LIMITS: WatchStateLimits = { finishedMatches: 128, liveMatches: 512, metricsPerRun: 2000, listedPerRun: 10_000, ratingsPerEntrant: 1000 };

interface HeldMatch {
  summary: MatchSummary;
  spans: { turn: number; author: string; text: string }[];
  events: WireEvent[];
}

const keyOf = (run: string, matchId: string) => `${run}\u0000${matchId}`;

/**
 * Everything a snapshot holds, kept up to date event by event and bounded: live matches with their text so far,
 * a ring of recent finished matches with their events (for scrubbing), recent metrics per run, ratings over rounds;
 * and every run's finished matches as list rows, which the list pages through with filters.
 */
export class WatchState {
  private readonly runs = new Map<string, RunInfo>();
  private readonly archives = new Map<string, MatchArchive>();
  private readonly live = new Map<string, HeldMatch>();
  private readonly finished = new Map<string, HeldMatch>();
  private readonly metrics = new Map<string, MetricsPoint[]>();
  /** Per tournament run and entrant, its rating after every round. */
  private readonly ratings = new Map<string, RatingHistory & { points: RatingHistory['points'][number][] }>();
  /** Per tournament run, its latest leaderboard. */
  private readonly leaderboards = new Map<string, readonly LeaderboardRow[]>();
  /** Per training run, its summary once it took all its steps. */
  private readonly summaries = new Map<string, RunSummary>();
  /** Per run, its finished matches as list rows, oldest first: a live run's as they end, a recorded run's when first asked for. */
  private readonly rows = new Map<string, MatchRow[]>();
  /** Per tournament run, its latest payoff table. */
  private readonly payoffs = new Map<string, PayoffTable>();
  private lastSeq = -1;

  constructor(private readonly limits: WatchStateLimits = DEFAULT_WATCH_LIMITS) {}

  get seq(): number {
    return this.lastSeq;
  }

  setRun(run: RunInfo, archive?: MatchArchive): void {
    this.runs.set(run.id, run);
    if (archive) this.archives.set(run.id, archive);
  }

  run(id: string): RunInfo | undefined {
    return this.runs.get(id);
  }

  /** Adds points to a run's curves; a point of a step already there (a validation after its step) joins that step's numbers. */
  addMetrics(run: string, points: readonly MetricsPoint[]): void {
    const list = this.metrics.get(run) ?? [];
    for (const point of points) {
      let at = list.length - 1;
      while (at >= 0 && list[at].step !== point.step) at--;
      if (at >= 0) list[at] = { step: point.step, metrics: { ...list[at].metrics, ...point.metrics } };
      else list.push(point);
    }
    if (list.length > this.limits.metricsPerRun) list.splice(0, list.length - this.limits.metricsPerRun);
    this.metrics.set(run, list);
  }

  apply(event: WireEvent): void {
    this.lastSeq = event.seq;
    switch (event.type) {
      case 'run-status': {
        const run = this.runs.get(event.run);
        if (run) this.runs.set(event.run, { ...run, status: event.status });
        return;
      }
      case 'train-step':
        this.addMetrics(event.run, [{ step: event.step, metrics: event.metrics }]);
        return;
      case 'validation':
        this.addMetrics(event.run, [{ step: event.step, metrics: validationMetrics(event.role, event.accuracy, event.answerPresent) }]);
        return;
      case 'rating-change': {
        const key = keyOf(event.run, event.entrant);
        const rating = this.ratings.get(key) ?? { run: event.run, entrant: event.entrant, system: event.system, points: [{ round: event.round - 1, rating: event.before, ...event.skill.before }] };
        rating.points.push({ round: event.round, rating: event.after, ...event.skill.after });
        if (rating.points.length > this.limits.ratingsPerEntrant) rating.points.splice(0, rating.points.length - this.limits.ratingsPerEntrant);
        this.ratings.set(key, rating);
        return;
      }
      case 'payoff-table':
        this.payoffs.set(event.run, event.table);
        return;
      case 'standings':
        this.leaderboards.set(event.run, event.rows);
        return;
      case 'run-summary':
        this.summaries.set(event.run, event.summary);
        return;
      case 'match-start': {
        const summary: MatchSummary = { run: event.run, matchId: event.matchId, game: event.game, seats: event.seats, problemId: event.problemId, tokenCount: 0, finished: false };
        this.live.set(keyOf(event.run, event.matchId), { summary, spans: [], events: [event] });
        if (this.live.size > this.limits.liveMatches) this.live.delete(this.live.keys().next().value as string);
        return;
      }
      default: {
        const key = keyOf(event.run, event.matchId);
        const held = this.live.get(key);
        if (!held) {
          // Events that follow a match's end (its step's advantages) join its kept events.
          this.finished.get(key)?.events.push(event);
          return;
        }
        held.events.push(event);
        if (event.type === 'tokens') {
          held.summary = { ...held.summary, tokenCount: held.summary.tokenCount + event.tokens.length };
          appendSpans(held.spans, event.turn, event.authors, event.text ?? '');
        } else if (event.type === 'match-end') {
          this.live.delete(key);
          held.summary = { ...held.summary, finished: true, outcome: event.outcome };
          this.finished.set(key, held);
          if (this.finished.size > this.limits.finishedMatches) this.finished.delete(this.finished.keys().next().value as string);
          this.addRow(event.run, matchRow(held.summary, held.events));
        }
      }
    }
  }

  /** Matches [offset, offset + limit) of a run's finished matches that pass `filter`, newest first; undefined for an unknown run. */
  matchPage(run: string, offset: number, limit: number, filter: MatchFilter = {}, query?: number): MatchPage | undefined {
    const rows = this.rowsOf(run);
    if (!rows) return undefined;
    const matches: MatchSummary[] = [];
    let total = 0;
    for (let i = rows.length - 1; i >= 0; i--) {
      if (!passes(rows[i], filter)) continue;
      if (total >= offset && matches.length < limit) matches.push(rows[i].summary);
      total += 1;
    }
    return { type: 'matches', run, ...(query === undefined ? {} : { query }), total, offset, matches };
  }

  private rowsOf(run: string): MatchRow[] | undefined {
    if (!this.runs.has(run)) return undefined;
    let rows = this.rows.get(run);
    const archive = this.archives.get(run);
    if (!rows && archive) {
      rows = archive.summaries().map((summary) => matchRow(summary, archive.digest(summary.matchId) ?? []));
      this.rows.set(run, rows);
    }
    return rows ?? [];
  }

  private addRow(run: string, row: MatchRow): void {
    const rows = this.rows.get(run) ?? [];
    rows.push(row);
    if (rows.length > this.limits.listedPerRun) rows.splice(0, rows.length - this.limits.listedPerRun);
    this.rows.set(run, rows);
  }

  /** A finished (or live) match's events, from the ring or the run's archive. */
  matchEvents(run: string, matchId: string): readonly WireEvent[] | undefined {
    const key = keyOf(run, matchId);
    return this.finished.get(key)?.events ?? this.live.get(key)?.events ?? this.archives.get(run)?.events(matchId);
  }

  snapshot(): Snapshot {
    return {
      type: 'snapshot',
      seq: this.lastSeq,
      runs: [...this.runs.values()].map((run) => {
        const archive = this.archives.get(run.id);
        return archive ? { ...run, matches: archive.summaries().length } : run;
      }),
      live: [...this.live.values()].map((held): LiveMatch => ({ ...held.summary, spans: held.spans })),
      finished: [...this.finished.values()].map((held) => held.summary),
      leaderboards: Object.fromEntries(this.leaderboards),
      ratings: [...this.ratings.values()],
      payoffs: Object.fromEntries(this.payoffs),
      summaries: Object.fromEntries(this.summaries),
      metrics: Object.fromEntries(this.metrics),
    };
  }
}

/** Joins text onto the last span when the same author goes on in the same turn; a handoff opens a new span. */
function appendSpans(spans: { turn: number; author: string; text: string }[], turn: number, authors: readonly string[], text: string): void {
  const author = authors[0];
  if (author === undefined) return;
  const last = spans[spans.length - 1];
  if (last && last.turn === turn && last.author === author) last.text += text;
  else spans.push({ turn, author, text });
}
