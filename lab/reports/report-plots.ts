import type { PassAtK } from '../eval/report-types.ts';
import { slug } from './markdown.ts';
import { displacementScatter } from './plots/displacement-scatter.ts';
import { passAtKPlot, type PassAtKSeries } from './plots/pass-at-k-plot.ts';
import { survivalPlot } from './plots/survival-plot.ts';
import { handoffVariantName, type LabelledReport } from './report-tables.ts';

/** One figure of a report: its file stem (`<name>.svg`, `<name>.png`), what it shows, and the SVG document. */
export interface Figure {
  name: string;
  caption: string;
  svg: string;
}

export const handoffFigureName = (variant: string): string => `handoff-${slug(variant)}-pass-at-k`;

const series = (label: string, table: PassAtK): PassAtKSeries => ({
  label,
  points: Object.entries(table).map(([k, e]) => ({ k: Number(k), value: e.value, se: e.se })),
});

const benchmarksOf = (entries: readonly LabelledReport[]) => [...new Set(entries.flatMap(({ report }) => report.benchmarks.map((b) => `${b.name} (${b.split})`)))].join(', ');

/** The report's figures where people would rather look than read: pass@k curves, the drift survival curve, displaced tokens. */
export function reportFigures(entries: readonly LabelledReport[]): Figure[] {
  const figures: Figure[] = [];
  const where = benchmarksOf(entries);

  const capable = entries.flatMap(({ label, report }) => (report.capability ? [{ label, capability: report.capability }] : []));
  if (capable.length > 0) {
    const samples = [...new Set(capable.map(({ capability }) => capability.samples))].join('/');
    figures.push({
      name: 'capability-pass-at-k',
      caption: 'Solo capability: macro pass@k, shaded ±1 bootstrap SE',
      svg: passAtKPlot(
        capable.map(({ label, capability }) => series(label, capability.macro.pass_at_k)),
        { title: 'Solo capability (pass@k, ↑)', subtitle: `${where}; n = ${samples} samples per problem; bands ±1 bootstrap SE` },
      ),
    });
  }

  const variants = [...new Set(entries.flatMap(({ report }) => (report.handoff ?? []).map(handoffVariantName)))];
  for (const variant of variants) {
    const runs = entries.flatMap(({ label, report }) => {
      const h = report.handoff?.find((candidate) => handoffVariantName(candidate) === variant);
      return h ? [{ label, h }] : [];
    });
    const words = runs[0].h.variant === 'word';
    figures.push({
      name: handoffFigureName(variant),
      caption: `Handoff robustness, ${variant} ${words ? 'at word starts (tandem accuracy)' : 'at step ends'}: team macro pass@k, shaded ±1 bootstrap SE`,
      svg: passAtKPlot(
        runs.map(({ label, h }) => series(label, h.macro.pass_at_k)),
        { title: words ? `Tandem accuracy, ${variant} (pass@k, ↑)` : `Handoff robustness, ${variant} at \\n\\n (pass@k, ↑)`, subtitle: `${where}; model and junior co-write each answer; bands ±1 bootstrap SE` },
      ),
    });
  }

  const drifting = entries.flatMap(({ label, report }) => (report.drift && report.drift.survival.length > 0 ? [{ label, drift: report.drift }] : []));
  if (drifting.length > 0) {
    const minCount = [...new Set(drifting.map(({ drift }) => drift.min_junior_count))].join('/');
    // Reports made before survival points had SEs plot without a band.
    const banded = drifting.some(({ drift }) => drift.survival.some((point) => point.se !== undefined));
    figures.push({
      name: 'drift-survival',
      caption: `Drift from the junior: share of frequent tokens whose |log-ratio| exceeds x (lower is closer)${banded ? ', shaded ±1 bootstrap SE' : ''}`,
      svg: survivalPlot(
        drifting.map(({ label, drift }) => ({ label, points: drift.survival })),
        {
          title: 'Drift from the junior (survival of |log-ratio|, ↓)',
          subtitle: `tokens the junior emits at least ${minCount} times; marginal distributions over all generations${banded ? '; bands ±1 bootstrap SE' : ''}`,
        },
      ),
    });
  }

  for (const { label, report } of entries) {
    const displaced = report.drift?.displaced;
    if (!displaced || displaced.tokens.length === 0) continue;
    const reference = entries.find((e) => e.report.model === report.reference)?.label ?? report.reference ?? 'reference';
    figures.push({
      name: `drift-displaced-${slug(label)}`,
      caption: `The ${displaced.top} tokens ${reference} displaces most, and how ${label} moves on them`,
      svg: displacementScatter(
        displaced.tokens.map((t) => ({
          x: t.reference_log_ratio,
          y: t.shift,
          group: Math.sign(t.shift) === -Math.sign(t.reference_log_ratio) && t.shift !== 0 ? 'shifts back' : `moves with ${reference}`,
          token: t.text,
        })),
        {
          title: `Top-${displaced.top} tokens displaced by ${reference}`,
          subtitle: `shift-back share ${(displaced.shift_back_share * 100).toFixed(1)}%, Spearman ρ = ${displaced.spearman.rho.toFixed(3)}; dotted: y = −x (fully back to the junior)`,
          xLabel: `log p_${reference}(t) / p_junior(t)`,
          yLabel: `log p_${label}(t) / p_${reference}(t)`,
          diagonal: -1,
        },
      ),
    });
  }
  return figures;
}
