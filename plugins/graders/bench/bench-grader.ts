import { parseGradeLine } from '../graded-line.ts';
import { defaultRules, FULL_EXTRACTION, type ExtractionStep } from '../math/extract.ts';
import { gradeMath } from '../math/grade-math.ts';
import type { GraderLine } from './grader-lines.ts';

export interface Spread {
  p50: number;
  p99: number;
  max: number;
}

export interface GraderBenchReport {
  lines: number;
  /** Lines whose grading threw: a crash. */
  errors: number;
  answer_present: number;
  correct: number;
  /** Milliseconds per line: JSON parsing and grading, as `ludus grade` does for each line. */
  ms: Spread;
  /**
   * CPU milliseconds the process spent per line (`process.cpuUsage`, all its threads): on a machine shared with
   * other work the wall time grows with the load, this much less.
   */
  cpu_ms: Spread;
  /** Steps charged per line (extraction and comparison). */
  steps: Spread;
  /** Lines per family, with the family's p99 and slowest milliseconds. */
  families: Record<string, { lines: number; p99_ms: number; max_ms: number }>;
  extraction: readonly ExtractionStep[];
}

/** Grades every line in process, one at a time, timing each; nothing is skipped and a throw is counted, not fatal. */
export function benchGrader(lines: readonly GraderLine[], extraction: readonly ExtractionStep[] = FULL_EXTRACTION): GraderBenchReport {
  const ms: number[] = [];
  const cpuMs: number[] = [];
  const steps: number[] = [];
  const byFamily = new Map<string, number[]>();
  const rules = defaultRules(extraction);
  let errors = 0;
  let present = 0;
  let correct = 0;
  lines.forEach((line, i) => {
    const text = JSON.stringify({ gold: line.gold, pred: line.pred });
    const cpuStarted = process.cpuUsage();
    const started = performance.now();
    try {
      const request = parseGradeLine(text, i + 1);
      if ('error' in request) throw new Error(request.error.message);
      const grade = gradeMath(request.gold, request.pred, { extraction, rules });
      steps.push(grade.steps);
      present += grade.answer_present ? 1 : 0;
      correct += grade.correct ? 1 : 0;
    } catch {
      errors++;
    }
    const elapsed = performance.now() - started;
    const cpu = process.cpuUsage(cpuStarted);
    ms.push(elapsed);
    cpuMs.push((cpu.user + cpu.system) / 1000);
    const times = byFamily.get(line.family) ?? [];
    times.push(elapsed);
    byFamily.set(line.family, times);
  });
  const families = Object.fromEntries(
    [...byFamily.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([family, times]) => [family, { lines: times.length, p99_ms: quantile(times, 0.99), max_ms: Math.max(...times) }]),
  );
  return { lines: lines.length, errors, answer_present: present, correct, ms: spread(ms), cpu_ms: spread(cpuMs), steps: spread(steps), families, extraction };
}

const spread = (values: number[]): Spread => ({ p50: quantile(values, 0.5), p99: quantile(values, 0.99), max: values.length === 0 ? 0 : Math.max(...values) });

/** The nearest-rank quantile: the smallest value with at least `q` of the values at or below it. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

export function formatGraderBench(report: GraderBenchReport, cli?: { exit_code: number; output_lines: number; wall_s: number }): string {
  const f = (x: number) => x.toFixed(3);
  const lines = [
    `${report.lines} lines graded in process (extraction: ${report.extraction.join(', ')}): ${report.errors} crashed, ${report.answer_present} with an answer, ${report.correct} correct`,
    `ms per line: p50 ${f(report.ms.p50)}, p99 ${f(report.ms.p99)}, max ${f(report.ms.max)}`,
    `cpu ms per line: p50 ${f(report.cpu_ms.p50)}, p99 ${f(report.cpu_ms.p99)}, max ${f(report.cpu_ms.max)}`,
    `steps per line: p50 ${report.steps.p50}, p99 ${report.steps.p99}, max ${report.steps.max}`,
    'family               lines   p99 ms    max ms',
    ...Object.entries(report.families).map(([family, s]) => `${family.padEnd(20)} ${String(s.lines).padStart(5)} ${f(s.p99_ms).padStart(9)} ${f(s.max_ms).padStart(9)}`),
  ];
  if (cli) lines.push(`ludus grade over the same file: exit ${cli.exit_code}, ${cli.output_lines} output lines, ${cli.wall_s.toFixed(1)} s wall`);
  return `${lines.join('\n')}\n`;
}
