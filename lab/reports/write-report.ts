import { join } from 'node:path';
import { fail } from '../../core/errors.ts';
import { writeFileAtomically } from '../../native/io/files.ts';
import type { EvalReport } from '../eval/report-types.ts';
import { markdownTable } from './markdown.ts';
import { svgToPng } from './plots/rasterize.ts';
import { handoffFigureName, reportFigures, type Figure } from './report-plots.ts';
import { testsPreamble } from './significance-columns.ts';
import { capabilityTable, driftTable, handoffTables, legibilityTable, significanceTable, type Comparison, type LabelledReport } from './report-tables.ts';

export interface WriteReportOptions {
  /** Names shown in tables and legends, one per report (default: each report's model). */
  labels?: readonly string[];
  title?: string;
  /** Paired comparisons beyond each report's own `significance` (e.g. TRL against each baseline). */
  comparisons?: readonly Comparison[];
  /** Paragraphs under the title: how the models were made, what was run. */
  notes?: readonly string[];
  /** Figures beyond the evaluation's own (e.g. training curves), shown after the notes and written like the rest. */
  figures?: readonly Figure[];
  /** Also rasterize every figure to PNG (default true). */
  png?: boolean;
  /** PNG width in pixels (default 1440, twice the SVG's). */
  pngWidth?: number;
}

export interface WrittenReport {
  /** Paths written, report.md first. */
  files: string[];
  markdown: string;
}

export const REPORT_MARKDOWN = 'report.md';
export const REPORT_JSON = 'report.json';

export type { Figure };

/**
 * Writes a paper-shaped report of one or more evaluations into `dir`: `report.md` (capability, handoff robustness,
 * drift, legibility and significance tables with their figures), `report.json` (the reports and comparisons it was
 * made from), and each figure as `<name>.svg` and `<name>.png`. Every file is written atomically.
 */
export async function writeReport(reports: readonly EvalReport[], dir: string, options: WriteReportOptions = {}): Promise<WrittenReport> {
  const entries = labelled(reports, options.labels);
  const comparisons: Comparison[] = [
    ...entries.flatMap(({ report }) => (report.significance ? [{ model: report.model, significance: report.significance }] : [])),
    ...(options.comparisons ?? []),
  ];
  const figures = [...(options.figures ?? []), ...reportFigures(entries)];
  const markdown = renderMarkdown(entries, comparisons, figures, options);
  const files: string[] = [];
  const write = async (name: string, contents: string | Uint8Array) => {
    const path = join(dir, name);
    await writeFileAtomically(path, contents);
    files.push(path);
  };
  await write(REPORT_MARKDOWN, markdown);
  await write(REPORT_JSON, `${JSON.stringify({ title: options.title ?? null, models: entries, comparisons }, null, 2)}\n`);
  for (const figure of figures) {
    await write(`${figure.name}.svg`, figure.svg);
    if (options.png ?? true) await write(`${figure.name}.png`, svgToPng(figure.svg, options.pngWidth ?? 1440));
  }
  return { files, markdown };
}

function labelled(reports: readonly EvalReport[], labels: readonly string[] | undefined): LabelledReport[] {
  if (reports.length === 0) fail('INPUT_INVALID', 'a report needs at least one evaluation');
  if (labels && labels.length !== reports.length) fail('INPUT_INVALID', `${labels.length} labels for ${reports.length} evaluations`);
  const entries = reports.map((report, i) => ({ label: labels?.[i] ?? report.model, report }));
  const seen = new Set<string>();
  for (const { label } of entries) {
    if (seen.has(label)) fail('INPUT_INVALID', `two evaluations share the label "${label}"; give each its own`, { label });
    seen.add(label);
  }
  return entries;
}

function renderMarkdown(entries: readonly LabelledReport[], comparisons: readonly Comparison[], figures: readonly Figure[], options: WriteReportOptions): string {
  const out: string[] = [`# ${options.title ?? 'Evaluation report'}`, ''];
  for (const note of options.notes ?? []) out.push(note, '');
  const figure = (name: string) => {
    const found = figures.find((f) => f.name === name);
    return found ? [`![${found.caption}](${found.name}.svg)`, ''] : [];
  };
  for (const extra of options.figures ?? []) out.push(...figure(extra.name));

  out.push('## Models', '', modelsTable(entries), '', ...settings(entries), '');

  const capability = capabilityTable(entries);
  if (capability) {
    out.push('## Solo capability', '', 'pass@k by the unbiased estimator, each model alone; ± one bootstrap standard error over problems.', '', capability, '', ...figure('capability-pass-at-k'));
  }
  const handoff = handoffTables(entries);
  if (handoff.length > 0) {
    out.push('## Handoff robustness', '', 'The model (senior) and the junior co-write each answer, handing off at every `\\n\\n` step end; team pass@k ± one bootstrap SE, the senior\'s share of the response tokens (mean ± std over rollouts, then the SE of the mean), handoffs per rollout and the answer-present rate ± one bootstrap SE over problems.', '');
    for (const { variant, table } of handoff) {
      out.push(`### ${variant}`, '', table, '', ...figure(handoffFigureName(variant)));
    }
  }
  const drift = driftTable(entries);
  if (drift) {
    out.push(
      '## Drift from the junior',
      '',
      'Marginal token distributions over all of each model\'s generations against the junior\'s; KL ± one bootstrap SE. Against a reference model: of the tokens the reference over-emits most, the share the model moves back toward the junior, and the Spearman ρ between the reference\'s displacement and the model\'s shift (negative: the model undoes it).',
      '',
      drift,
      '',
      ...figure('drift-survival'),
      ...figures.filter((f) => f.name.startsWith('drift-displaced-')).flatMap((f) => figure(f.name)),
    );
  }
  const legibility = legibilityTable(entries);
  if (legibility) {
    out.push('## Junior legibility', '', 'The junior reads each model\'s own answers teacher-forced: its per-token cross-entropy (lower: the junior is less surprised) and the overlap α = Σ min(p_model, p_junior) averaged over positions; ± one bootstrap SE over problems.', '', legibility, '');
  }
  const significance = significanceTable(entries, comparisons);
  if (significance) {
    out.push('## Significance', '', `${testsPreamble(significance.family)} Pooled across benchmarks (pass@k differences as fractions, cross-entropy in nats).`, '', significance.table, '');
  }
  return `${out.join('\n').trimEnd()}\n`;
}

function modelsTable(entries: readonly LabelledReport[]): string {
  return markdownTable(
    ['label', 'model', 'junior', 'reference', 'benchmarks', 'seed', 'eval wall (s)'],
    entries.map(({ label, report }) => [
      label,
      report.model,
      report.junior ?? '–',
      report.reference ?? '–',
      report.benchmarks.map((b) => `${b.name} ${b.split} × ${b.problems}`).join(', '),
      String(report.seed),
      report.wall_seconds.toFixed(0),
    ]),
    ['left', 'left', 'left', 'left', 'left', 'right', 'right'],
  );
}

function settings(entries: readonly LabelledReport[]): string[] {
  const config = entries[0].report.config;
  const line =
    `Settings: ${config.samples} samples per problem, temperature ${config.temperature}, top-p ${config.top_p}, at most ${config.max_new_tokens} new tokens, ` +
    `k ∈ {${config.ks.join(', ')}}, ${config.bootstrap} bootstrap resamples, handoff ${config.handoff_variants.join(' and ')} (p = ${config.handoff_p}).`;
  const same = entries.every(({ report }) => JSON.stringify(report.config) === JSON.stringify(config));
  return same ? [line] : [line.replace('Settings:', `Settings of ${entries[0].label}:`), '', '**The models were evaluated with different settings**; each one\'s are in report.json.'];
}
