import { EventEmitter } from 'eventemitter3';
import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fail } from '../core/errors.ts';
import type { LudusEmitter, LudusEvent, LudusEventMap } from '../core/events.ts';
import { pathExists, readableDirectory } from '../native/io/files.ts';
import { TOKENIZER_FILE, TRAINER_STATE_FILE } from '../engine/trainer/training-checkpoint.ts';
import { loadTokenizer } from '../plugins/tokenizers/hf-tokenizer.ts';
import { EventStream } from '../engine/match/event-stream.ts';
import { readJsonl, warnOnStderr, type Warn } from '../engine/trainer/jsonl-log.ts';
import { MatchBroadcast, tokenTexts } from '../engine/match/match-events.ts';
import type { MetricsLine } from '../engine/trainer/metrics-line.ts';
import type { transcriptLine } from '../engine/trainer/transcript-line.ts';
import { CHECKPOINT_DIR, METRICS_FILE, numericFields, TRANSCRIPTS_FILE } from '../engine/trainer/trainer.ts';
import type { MatchArchive } from './watch-state.ts';
import type { MatchSummary, MetricsPoint, WireEvent } from './wire.ts';

type TranscriptLine = ReturnType<typeof transcriptLine>;

export interface RecordedRun {
  readonly id: string;
  readonly dir: string;
  /** The game named by the run's checkpoint, when it has one. */
  readonly game: string | undefined;
  readonly archive: MatchArchive;
  readonly metrics: readonly MetricsPoint[];
}

/** Run directories under `dir`: `dir` itself when it holds a transcripts file, else each child that does. */
export async function findRunDirs(dir: string): Promise<string[]> {
  if (await pathExists(join(dir, TRANSCRIPTS_FILE))) return [dir];
  if (!(await pathExists(dir))) fail('FILE_NOT_FOUND', `${dir}: no such directory`, { dir });
  const children = (await readdir(dir, { withFileTypes: true })).filter((entry) => entry.isDirectory()).map((entry) => join(dir, entry.name));
  const runs = [];
  for (const child of children.sort()) if (await pathExists(join(child, TRANSCRIPTS_FILE))) runs.push(child);
  if (runs.length === 0) fail('FILE_NOT_FOUND', `${dir}: no ${TRANSCRIPTS_FILE} in it or in its subdirectories`, { dir });
  return runs;
}

/**
 * A finished run read back from its directory: each match's events rebuilt from its transcript line by the same
 * publisher live matches go through (a token at a time, handoffs, verdict, rewards), on request; curves from its
 * metrics. Token texts come from the tokenizer its checkpoint saved. A log's last line cut short by a crash is
 * dropped and reported through `warn`.
 */
export async function loadRecordedRun(
  dir: string,
  judgedRole?: (game: string | undefined, roles: readonly string[]) => string,
  warn: Warn = warnOnStderr,
): Promise<RecordedRun> {
  const id = basename(dir);
  const lines = await readJsonl<TranscriptLine>(join(dir, TRANSCRIPTS_FILE), warn);
  const metrics = (await pathExists(join(dir, METRICS_FILE))) ? await readJsonl<MetricsLine>(join(dir, METRICS_FILE), warn) : [];
  const checkpoint = (await readableDirectory(join(dir, CHECKPOINT_DIR))) ?? join(dir, CHECKPOINT_DIR);
  const statePath = join(checkpoint, TRAINER_STATE_FILE);
  const game = (await pathExists(statePath)) ? (JSON.parse(await readFile(statePath, 'utf8')) as { config?: { game?: string } }).config?.game : undefined;
  const tokenizer = await loadTokenizer(join(checkpoint, TOKENIZER_FILE));
  const texts = tokenTexts(tokenizer, []);
  const byId = new Map(lines.map((line) => [line.matchId, line]));
  const summaries: MatchSummary[] = lines.map((line) => ({
    run: id,
    matchId: line.matchId,
    game: game ?? 'unknown',
    seats: Object.fromEntries(line.roles.map((role) => [role, role])),
    problemId: line.problemId,
    tokenCount: line.responseIds.length,
    finished: true,
    outcome: line.outcome,
  }));
  return {
    id,
    dir,
    game,
    metrics: metrics.map((line) => ({ step: line.step, metrics: numericFields(line) })),
    archive: {
      summaries: () => summaries,
      events: (matchId) => {
        const line = byId.get(matchId);
        return line ? replayEvents(id, game ?? 'unknown', line, texts, judgedRole?.(game, line.roles) ?? line.roles[0]) : undefined;
      },
    },
  };
}

/** The events a live match would have published, numbered from 0 within the match. */
function replayEvents(run: string, game: string, line: TranscriptLine, text: (id: number) => string, judged: string): WireEvent[] {
  const events: LudusEvent[] = [];
  const emitter: LudusEmitter = new EventEmitter<LudusEventMap>();
  emitter.on('event', (event) => events.push(event));
  const broadcast = new MatchBroadcast(new EventStream(emitter), game, Object.fromEntries(line.roles.map((role) => [role, role])), line.roles, text);
  broadcast.start([{ matchId: line.matchId, problem: { id: line.problemId } }], line.seeds.generation);
  line.responseIds.forEach((token, t) => void broadcast.onStep?.(t, Int32Array.of(token), Int32Array.of(line.authors[t])));
  broadcast.close(
    { matchId: line.matchId, tokenCount: line.responseIds.length, finish: line.finish, verdict: { answer_present: line.answer_present, correct: line.correct }, outcome: line.outcome },
    judged,
  );
  return events.map((event) => ({ ...event, run }));
}
