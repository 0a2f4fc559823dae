import type { BenchRecord } from './bench-record.ts';

/** Whether a larger value of a measure is better, worse, or neither (a setting, a count), by its name. */
export type Direction = 'higher' | 'lower' | 'neither';

export function directionOf(path: string): Direction {
  const name = path.split('.').at(-1) ?? path;
  if (/(tok_s|_over_|ratio|speedup|per_s|gflops?)/.test(name)) return 'higher';
  if (/(_ms|_mb|_gb|_bytes|rss|seconds|_s$|latency|p\d\d)/.test(name)) return 'lower';
  return 'neither';
}

export interface ComparedMeasure {
  readonly path: string;
  readonly old: number;
  readonly new: number;
  /** new / old. */
  readonly ratio: number;
  readonly direction: Direction;
  /** A move for the worse past the threshold. */
  readonly regression: boolean;
}

/** Every numeric leaf of an object, by its dotted path (arrays by index). */
export function numericLeaves(value: unknown, prefix = ''): Map<string, number> {
  const leaves = new Map<string, number>();
  const walk = (v: unknown, path: string) => {
    if (typeof v === 'number' && Number.isFinite(v)) leaves.set(path, v);
    else if (Array.isArray(v)) v.forEach((item, i) => walk(item, `${path}[${i}]`));
    else if (typeof v === 'object' && v !== null) for (const [key, child] of Object.entries(v)) walk(child, path ? `${path}.${key}` : key);
  };
  walk(value, prefix);
  return leaves;
}

/** The PyTorch peer a report's torch measures came from; reports before 2026-12-07 name none: theirs is the reference model. */
export function torchPeerOf(report: unknown): string | undefined {
  const r = (report ?? {}) as { torch_peer?: unknown; torch?: unknown; summary?: { torch_peer?: unknown }; phases?: Record<string, unknown> };
  const named = r.torch_peer ?? r.summary?.torch_peer;
  if (typeof named === 'string') return named;
  const measured = r.torch !== undefined || Object.keys(r.phases ?? {}).some((name) => name.startsWith('torch-'));
  return measured ? REFERENCE_PEER : undefined;
}

export const REFERENCE_PEER = 'the reference model (qwen3_reference.py, torch_decode_bench.py)';

/** Why the two reports' PyTorch measures are not comparable (their peers differ), or undefined. */
export function torchPeerChange(oldReport: unknown, newReport: unknown): string | undefined {
  const [before, after] = [torchPeerOf(oldReport), torchPeerOf(newReport)];
  return before !== undefined && after !== undefined && before !== after ? `the PyTorch peer changed (${before} -> ${after}): ratios against it are not comparable, and are not flagged` : undefined;
}

/**
 * The measures both reports hold, side by side: a speed (tok/s, a ratio) that fell, or a cost (ms, MB) that rose, by
 * more than `threshold` (0.1: 10%) is a regression. Settings (batch sizes, seeds) are listed without a verdict, and so
 * are measures of a PyTorch peer that changed between the two.
 */
export function compareReports(oldReport: unknown, newReport: unknown, threshold = 0.1): ComparedMeasure[] {
  const before = numericLeaves(oldReport);
  const after = numericLeaves(newReport);
  const peerChanged = torchPeerChange(oldReport, newReport) !== undefined;
  const measures: ComparedMeasure[] = [];
  for (const [path, old] of before) {
    const now = after.get(path);
    if (now === undefined) continue;
    const ratio = old === 0 ? (now === 0 ? 1 : Number.POSITIVE_INFINITY) : now / old;
    const direction = directionOf(path);
    // The change against the old value's magnitude, so a signed measure (an RSS growth that can be negative) is
    // judged by which way it moved, not by the ratio of two negative numbers.
    const change = old === 0 ? Math.sign(now) * Number.POSITIVE_INFINITY : (now - old) / Math.abs(old);
    const regression = !(peerChanged && /torch/i.test(path)) && ((direction === 'higher' && change < -threshold) || (direction === 'lower' && change > threshold));
    measures.push({ path, old, new: now, ratio, direction, regression });
  }
  return measures;
}

const describe = (label: string, record: BenchRecord | undefined) =>
  record ? `${label}: ${record.bench} ${record.date.slice(0, 16)} commit ${record.commit}, ${record.quiet ? 'quiet' : 'UNDER LOAD'} (load ${record.load.before[0]} before)` : `${label}: a bare report (no machine or load recorded)`;

const show = (n: number) => (Number.isInteger(n) ? String(n) : Math.abs(n) >= 100 ? n.toFixed(0) : n.toPrecision(4));

const ITEM = /^(.*)\[(\d+)\]$/;
const arrayOf = (path: string): string | undefined => ITEM.exec(path)?.[1];
const indexOf = (path: string): number => Number(ITEM.exec(path)?.[2]);
const unchangedSetting = (m: ComparedMeasure): boolean => m.direction === 'neither' && m.old === m.new && arrayOf(m.path) !== undefined;

/** How many measures from `start` are unchanged settings, consecutive items of one array. */
function unchangedItems(measures: readonly ComparedMeasure[], start: number): number {
  const first = measures[start];
  if (!unchangedSetting(first)) return 0;
  let n = 1;
  while (start + n < measures.length) {
    const next = measures[start + n];
    if (!unchangedSetting(next) || arrayOf(next.path) !== arrayOf(first.path) || indexOf(next.path) !== indexOf(first.path) + n) break;
    n++;
  }
  return n;
}

export function formatComparison(measures: readonly ComparedMeasure[], records: { old?: BenchRecord; new?: BenchRecord }, threshold: number, notes: readonly string[] = []): string {
  const width = Math.max(7, ...measures.map((m) => m.path.length));
  const lines = [describe('old', records.old), describe('new', records.new)];
  if (records.old && records.new && records.old.quiet !== records.new.quiet) lines.push('warning: one record was taken under load and one quiet; load moves these ratios by tens of percent');
  for (const note of notes) lines.push(`warning: ${note}`);
  lines.push('', `${'measure'.padEnd(width)}  ${'old'.padStart(10)}  ${'new'.padStart(10)}  new/old`);
  for (let i = 0; i < measures.length; i++) {
    const m = measures[i];
    // A run of unchanged settings that are one array's items (the tokens a bench scored) is one line, not hundreds.
    const run = unchangedItems(measures, i);
    if (run > 1) {
      lines.push(`${`${arrayOf(m.path)}[${indexOf(m.path)}..${indexOf(measures[i + run - 1].path)}]`.padEnd(width)}  ${`${run} items unchanged`.padStart(22)}  (settings)`);
      i += run - 1;
      continue;
    }
    const flag = m.regression ? `  <- ${m.direction === 'higher' ? 'dropped' : 'rose'} ${Math.abs((m.ratio - 1) * 100).toFixed(0)}%` : '';
    lines.push(`${m.path.padEnd(width)}  ${show(m.old).padStart(10)}  ${show(m.new).padStart(10)}  ${Number.isFinite(m.ratio) ? m.ratio.toFixed(3) : 'inf'}${m.direction === 'neither' ? ' (setting)' : ''}${flag}`);
  }
  const regressions = measures.filter((m) => m.regression);
  lines.push('', regressions.length === 0 ? `no measure moved for the worse by more than ${threshold * 100}%` : `${regressions.length} measure(s) moved for the worse by more than ${threshold * 100}%: ${regressions.map((m) => m.path).join(', ')}`);
  return `${lines.join('\n')}\n`;
}
