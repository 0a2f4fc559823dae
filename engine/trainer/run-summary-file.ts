import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunSummary } from '../../core/events.ts';
import { pathExists, writeFileAtomically } from '../../native/io/files.ts';
import type { FinalComparison } from './final-comparison.ts';
import { readJsonl } from './jsonl-log.ts';

/** The run directory's file of final figures, written once the run has taken all its steps. */
export const SUMMARY_FILE = 'summary.json';

/** A line of validation.jsonl, as far as the summary reads it. */
interface ValidationLine {
  readonly step: number;
  readonly split?: string;
  readonly role?: string;
  readonly accuracy: number;
  readonly problems: number;
}

/**
 * The run's final figures: the held-out comparison with the start (bootstrap SEs over problems) and the best
 * validation accuracy, read back from validation.jsonl so a resumed run reports the steps its earlier process
 * validated too (binomial SE over the problems validated: √(p(1 − p)/n)).
 */
export async function runSummaryOf(game: string, steps: number, comparison: FinalComparison | undefined, validationFile: string): Promise<RunSummary> {
  const lines = (await pathExists(validationFile)) ? await readJsonl<ValidationLine>(validationFile) : [];
  const best = lines.reduce<ValidationLine | undefined>((top, line) => (top === undefined || line.accuracy > top.accuracy ? line : top), undefined);
  return {
    game,
    steps,
    ...(comparison
      ? { comparison: { role: comparison.role, policy: comparison.policy, written: comparison.written, split: comparison.split, problems: comparison.problems, trained: estimate(comparison.trained), start: estimate(comparison.start), difference: estimate(comparison.difference) } }
      : {}),
    ...(best
      ? { best: { role: best.role ?? 'senior', step: best.step, split: best.split ?? 'validation', problems: best.problems, accuracy: { value: best.accuracy, se: Math.sqrt((best.accuracy * (1 - best.accuracy)) / Math.max(1, best.problems)) } } }
      : {}),
  };
}

const estimate = ({ value, se }: { value: number; se: number }) => ({ value, se });

/**
 * summary.json in the run directory, written atomically. The half-written copy of a process killed while writing it
 * (`.summary.json.writing-*`: the run's last write, after its last checkpoint) is removed first; the run directory's
 * lock makes this process its only writer.
 */
export async function writeRunSummary(out: string, summary: RunSummary): Promise<void> {
  for (const entry of await readdir(out)) if (entry.startsWith(`.${SUMMARY_FILE}.writing-`)) await rm(join(out, entry), { force: true });
  await writeFileAtomically(join(out, SUMMARY_FILE), `${JSON.stringify(summary, null, 2)}\n`);
}

/**
 * The summary as scalars, for TensorBoard and MLflow at the last step: `final/<role>/{trained,start,difference}` and
 * `best/<role>/accuracy`, each with its `_se`.
 */
export function summaryScalars(summary: RunSummary): Record<string, number> {
  const scalars: Record<string, number> = {};
  const c = summary.comparison;
  if (c) {
    for (const [name, value] of [['trained', c.trained], ['start', c.start], ['difference', c.difference]] as const) {
      scalars[`final/${c.role}/${name}`] = value.value;
      scalars[`final/${c.role}/${name}_se`] = value.se;
    }
  }
  if (summary.best) {
    scalars[`best/${summary.best.role}/accuracy`] = summary.best.accuracy.value;
    scalars[`best/${summary.best.role}/accuracy_se`] = summary.best.accuracy.se;
  }
  return scalars;
}
