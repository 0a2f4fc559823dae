import { EventEmitter } from 'eventemitter3';
import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fail } from '../core/errors.ts';
import type { LudusEmitter, LudusEvent, LudusEventMap } from '../core/events.ts';
import { pathExists } from '../native/io/files.ts';
import { TOKENIZER_FILE } from '../engine/trainer/training-checkpoint.ts';
import { loadTokenizer } from '../plugins/tokenizers/hf-tokenizer.ts';
import { EventStream } from '../engine/match/event-stream.ts';
import { readJsonl, warnOnStderr, type Warn } from '../engine/trainer/jsonl-log.ts';
import { MatchBroadcast, tokenTexts, type TokenText } from '../engine/match/match-events.ts';
import { flatMetrics, validationMetrics, type MetricsLine } from '../engine/trainer/metrics-line.ts';
import type { TranscriptLine } from '../engine/trainer/transcript-line.ts';
import { METRICS_FILE, RUN_FILE, TRANSCRIPTS_FILE, VALIDATION_FILE, type RunRecord } from '../engine/trainer/trainer.ts';
import type { MatchArchive } from './watch-state.ts';
import type { MatchSummary, MetricsPoint, WireEvent } from './wire.ts';

export interface RecordedRun {
  readonly id: string;
  readonly dir: string;
  /** The game named by the run's run.json, when it has one. */
  readonly game: string | undefined;
  readonly record: RunRecord | undefined;
  readonly archive: MatchArchive;
  readonly metrics: readonly MetricsPoint[];
}

/** How deep under a `--runs` directory run directories are looked for: runs/ → a tournament → games → a game. */
const SEARCH_DEPTH = 3;

/**
 * Run directories under `dir`: `dir` itself when it holds a transcripts file, else every directory below it that does
 * (down to three levels, so `runs/` finds a tournament's games at `runs/<tournament>/games/<game>`), sorted.
 */
export async function findRunDirs(dir: string): Promise<string[]> {
  if (!(await pathExists(dir))) fail('FILE_NOT_FOUND', `${dir}: no such directory`, { dir });
  const runs = await runDirsUnder(dir, SEARCH_DEPTH);
  if (runs.length === 0) fail('FILE_NOT_FOUND', `${dir}: no ${TRANSCRIPTS_FILE} in it or in its subdirectories (${SEARCH_DEPTH} levels down)`, { dir });
  return runs;
}

async function runDirsUnder(dir: string, depth: number): Promise<string[]> {
  if (await pathExists(join(dir, TRANSCRIPTS_FILE))) return [dir];
  if (depth === 0) return [];
  const children = (await readdir(dir, { withFileTypes: true }).catch(() => [])).filter((entry) => entry.isDirectory() && !entry.name.startsWith('.')).map((entry) => entry.name);
  const runs: string[] = [];
  for (const child of children.sort()) runs.push(...(await runDirsUnder(join(dir, child), depth - 1)));
  return runs;
}

/**
 * A finished run read back from its directory: each match's events rebuilt from its transcript line by the same
 * publisher live matches go through (turn by turn, a token at a time, handoffs, verdicts, rewards), on request;
 * curves from its metrics. Token texts come from the tokenizer the run saved; the game and its config from run.json.
 * A log's last line cut short by a crash is dropped and reported through `warn`.
 */
export async function loadRecordedRun(dir: string, warn: Warn = warnOnStderr, id = basename(dir)): Promise<RecordedRun> {
  const lines = await readJsonl<TranscriptLine>(join(dir, TRANSCRIPTS_FILE), warn);
  const metrics = (await pathExists(join(dir, METRICS_FILE))) ? await readJsonl<MetricsLine>(join(dir, METRICS_FILE), warn) : [];
  const validations = (await pathExists(join(dir, VALIDATION_FILE))) ? await readJsonl<{ step: number; role?: string; accuracy: number; answer_present: number }>(join(dir, VALIDATION_FILE), warn) : [];
  const record = (await pathExists(join(dir, RUN_FILE))) ? (JSON.parse(await readFile(join(dir, RUN_FILE), 'utf8')) as RunRecord) : undefined;
  const game = record?.game;
  const tokenizer = await loadTokenizer(join(dir, TOKENIZER_FILE));
  const texts = tokenTexts(tokenizer, []);
  const byId = new Map(lines.map((line) => [line.matchId, line]));
  // Runs recorded before metrics counted tokens: the same count, from their transcripts.
  const tokensAt = new Map<number, number>();
  for (const line of lines) tokensAt.set(line.step, (tokensAt.get(line.step) ?? 0) + line.turns.reduce((sum, turn) => sum + turn.responseIds.length, 0));
  const summaries: MatchSummary[] = lines.map((line) => ({
    run: id,
    matchId: line.matchId,
    game: game ?? 'unknown',
    seats: line.seats,
    problemId: line.problemId,
    tokenCount: line.turns.reduce((sum, turn) => sum + turn.responseIds.length, 0),
    finished: true,
    outcome: line.outcome,
  }));
  return {
    id,
    dir,
    game,
    record,
    metrics: [
      ...metrics.map((line) => ({ step: line.step, metrics: flatMetrics({ ...line, tokens: line.tokens ?? tokensAt.get(line.step) }) })),
      ...validations.map((line) => ({ step: line.step, metrics: validationMetrics(line.role ?? 'senior', line.accuracy, line.answer_present) })),
    ],
    archive: {
      summaries: () => summaries,
      events: (matchId) => {
        const line = byId.get(matchId);
        return line ? replayEvents(id, game ?? 'unknown', line, texts) : undefined;
      },
      digest: (matchId) => {
        const line = byId.get(matchId);
        return line ? digestEvents(id, game ?? 'unknown', line) : undefined;
      },
    },
  };
}

/** The events a live match would have published, numbered from 0 within the match. */
function replayEvents(run: string, game: string, line: TranscriptLine, text: TokenText): WireEvent[] {
  const events: LudusEvent[] = [];
  const emitter: LudusEmitter = new EventEmitter<LudusEventMap>();
  emitter.on('event', (event) => events.push(event));
  const broadcast = new MatchBroadcast(new EventStream(emitter), game, text);
  broadcast.start([{ matchId: line.matchId, seats: line.seats, problem: { id: line.problemId, prompt: line.prompt, answer: line.answer } }], line.seed);
  for (const turn of line.turns) {
    broadcast.turnStart(line.matchId, turn.turn, turn.role, line.seats[turn.role] ?? turn.role);
    const stream = broadcast.streamer([{ matchId: line.matchId, turn: turn.turn, roles: turn.roles }])!;
    turn.responseIds.forEach((token, t) => void stream(t, Int32Array.of(token), Int32Array.of(turn.authors[t])));
    broadcast.turnEnd(line.matchId, { ...turn, tokens: turn.responseIds, authorRoles: turn.roles, authorIds: turn.authors }, true);
  }
  broadcast.matchEnd({ matchId: line.matchId, rewards: { outcome: line.outcome, ...(line.steps ? { steps: line.steps } : {}), verdicts: line.verdicts } });
  const stream = new EventStream(emitter, events.length);
  for (const [role, advantage] of Object.entries(line.advantages ?? {})) stream.publish({ type: 'advantage', matchId: line.matchId, role, ...advantage });
  return events.map((event) => ({ ...event, run }));
}

/** The match in few events: its start, each turn's whole text as one tokens event and its end, the verdicts. */
function digestEvents(run: string, game: string, line: TranscriptLine): WireEvent[] {
  const at = { seq: 0, run, matchId: line.matchId };
  const events: WireEvent[] = [{ ...at, type: 'match-start', game, seed: line.seed, seats: line.seats, problemId: line.problemId, prompt: line.prompt, answer: line.answer }];
  for (const turn of line.turns) {
    events.push({ ...at, type: 'tokens', turn: turn.turn, position: 0, tokens: turn.responseIds, authors: turn.authors.map((author) => turn.roles[author] ?? turn.role), text: turn.text });
    events.push({ ...at, type: 'turn-end', turn: turn.turn, role: turn.role, tokenCount: turn.responseIds.length, finish: turn.finish ?? 'length' });
  }
  for (const verdict of line.verdicts) {
    events.push({ ...at, type: 'verdict', role: verdict.role, answerPresent: verdict.answer_present, correct: verdict.correct, judge: verdict.judge, turn: verdict.turn, ...(verdict.step === undefined ? {} : { step: verdict.step }) });
  }
  return events;
}
