import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { fail } from '../../core/errors.ts';
import { gitCommit } from '../../native/io/git-commit.ts';
import { packageRoot } from '../../native/io/package-root.ts';

/**
 * A benchmark's output kept as a dated record: what was measured, on what machine, at which commit, and how loaded
 * the machine was before and after, so two records can be compared and a regression seen (`ludus bench compare`).
 */
export interface BenchRecord {
  readonly bench: string;
  readonly date: string;
  readonly commit: string;
  readonly machine: { readonly cpu: string; readonly cores: number; readonly memory_gib: number; readonly node: string; readonly platform: string };
  /** 1-, 5- and 15-minute load averages when the bench started and when it ended. */
  readonly load: { readonly before: readonly number[]; readonly after: readonly number[] };
  /** Quiet: the 1-minute load average was under a quarter of the cores when the bench started (ours). */
  readonly quiet: boolean;
  readonly argv: readonly string[];
  readonly report: unknown;
}

const RecordSchema = z.looseObject({ bench: z.string(), date: z.string(), commit: z.string(), quiet: z.boolean(), load: z.looseObject({ before: z.array(z.number()) }), report: z.unknown() });

const round2 = (values: readonly number[]) => values.map((v) => Math.round(v * 100) / 100);

/** The load averages now, to be passed back to {@link benchRecord} when the bench ends. */
export const loadNow = (): number[] => round2(loadavg());

export async function benchRecord(bench: string, report: unknown, loadBefore: readonly number[]): Promise<BenchRecord> {
  const cores = availableParallelism();
  return {
    bench,
    date: new Date().toISOString(),
    commit: (await gitCommit(packageRoot(), { short: true })) ?? 'unknown',
    machine: { cpu: cpus()[0]?.model ?? 'unknown', cores, memory_gib: Math.round(totalmem() / 2 ** 30), node: process.version, platform: `${process.platform}-${process.arch}` },
    load: { before: loadBefore, after: loadNow() },
    quiet: loadBefore[0] < cores / 4,
    argv: process.argv.slice(2),
    report,
  };
}

/** Writes the record as `<dir>/<date>-<bench>-<commit>.json`; returns the path. */
export async function saveRecord(dir: string, record: BenchRecord): Promise<string> {
  await mkdir(dir, { recursive: true });
  const path = join(dir, `${record.date.slice(0, 16).replace(':', '')}-${record.bench}-${record.commit}.json`);
  await writeFile(path, `${JSON.stringify(record, null, 2)}\n`);
  return path;
}

/** A JSON file: FILE_NOT_FOUND where there is none, DATA_INVALID where it does not parse. */
export async function readBenchJson(path: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return fail(code === 'ENOENT' ? 'FILE_NOT_FOUND' : 'DATA_INVALID', `${path}: ${code === 'ENOENT' ? 'no such file' : `not JSON (${(error as Error).message})`}`, { file: path });
  }
}

/** A record from a file: a saved record, or a bench's bare `--json` line (then with nothing known about its machine). */
export async function readRecord(path: string): Promise<{ record?: BenchRecord; report: unknown }> {
  const json = await readBenchJson(path);
  if (typeof json !== 'object' || json === null || Array.isArray(json)) fail('DATA_INVALID', `${path}: a bench record or report is a JSON object`, { file: path });
  const record = RecordSchema.safeParse(json);
  return record.success ? { record: json as BenchRecord, report: record.data.report } : { report: json };
}
