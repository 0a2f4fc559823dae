import { scaleLinear } from 'd3-scale';
import { area, curveStepAfter, line } from 'd3-shape';
import { DEFAULT_PLOT_SIZE, frameOf, renderChart, type PlotSize } from './chart.ts';
import { seriesColor } from './palette.ts';
import { element } from './svg.ts';

export interface SurvivalPoint {
  /** x: a threshold on |log(p_model(t) / p_junior(t))|. */
  threshold: number;
  /** Fraction of tokens whose |log-ratio| exceeds the threshold. */
  fraction: number;
  /** One standard error; where a series has them, a shaded step band spans fraction ± se (clamped to [0, 1]). */
  se?: number;
}

export interface SurvivalSeries {
  label: string;
  points: readonly SurvivalPoint[];
}

export interface SurvivalPlotOptions {
  title: string;
  subtitle?: string;
  xLabel?: string;
  size?: PlotSize;
}

/**
 * The drift survival curve of the tandem paper's Figure 4 (left): one step curve per model, lower is closer to the
 * junior, over a shaded ±1 SE step band for a series whose points carry an SE.
 */
export function survivalPlot(series: readonly SurvivalSeries[], options: SurvivalPlotOptions): string {
  const size = options.size ?? DEFAULT_PLOT_SIZE;
  const frame = frameOf(size);
  const thresholds = series.flatMap((s) => s.points.map((p) => p.threshold));
  if (thresholds.length === 0) throw new RangeError('survival plot: needs at least one point');
  const xMax = Math.max(...thresholds);
  const x = scaleLinear()
    .domain([Math.min(0, ...thresholds), xMax > 0 ? xMax : 1])
    .range([frame.left, frame.right]);
  const y = scaleLinear().domain([0, 1]).range([frame.bottom, frame.top]);

  const body = series.map((s, i) => {
    const color = seriesColor(i);
    const points = [...s.points].sort((a, b) => a.threshold - b.threshold);
    const path = line<SurvivalPoint>()
      .curve(curveStepAfter)
      .x((p) => x(p.threshold))
      .y((p) => y(p.fraction))(points);
    const band = hasBand(s)
      ? area<SurvivalPoint>()
          .curve(curveStepAfter)
          .x((p) => x(p.threshold))
          .y0((p) => y(Math.max(0, p.fraction - (p.se ?? 0))))
          .y1((p) => y(Math.min(1, p.fraction + (p.se ?? 0))))(points)
      : null;
    return element('g', { class: 'series', 'data-label': s.label }, [
      ...(band ? [element('path', { class: 'band', d: band, fill: color, 'fill-opacity': 0.18, stroke: 'none' })] : []),
      element('path', { class: 'line', d: path ?? '', fill: 'none', stroke: color, 'stroke-width': 2 }),
    ]);
  });
  return renderChart({
    size,
    title: options.title,
    subtitle: options.subtitle,
    x: { at: x, ticks: x.ticks(6), format: x.tickFormat(6), label: options.xLabel ?? 'x = |log p_model(t) / p_junior(t)|' },
    y: { at: y, ticks: y.ticks(5), format: y.tickFormat(5), label: 'fraction of tokens with |log-ratio| > x' },
    legend: series.map((s, i) => ({ label: s.label, color: seriesColor(i), mark: hasBand(s) ? ('band' as const) : ('line' as const) })),
    body,
  });
}

const hasBand = (s: SurvivalSeries): boolean => s.points.some((p) => p.se !== undefined);
