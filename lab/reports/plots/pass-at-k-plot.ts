import { scaleLinear, scaleLog } from 'd3-scale';
import { area, line } from 'd3-shape';
import { DEFAULT_PLOT_SIZE, frameOf, renderChart, type PlotSize } from './chart.ts';
import { seriesColor } from './palette.ts';
import { element } from './svg.ts';

export interface PassAtKPoint {
  k: number;
  value: number;
  /** One standard error; the band spans value ± se. */
  se: number;
}

export interface PassAtKSeries {
  label: string;
  points: readonly PassAtKPoint[];
}

export interface PassAtKPlotOptions {
  title: string;
  subtitle?: string;
  yLabel?: string;
  /** Fixed y range; by default the bands' extent, padded and clamped to [0, 1]. */
  yDomain?: readonly [number, number];
  size?: PlotSize;
}

/** pass@k against k on a log2 axis, one line with markers per model over a shaded ±1 SE band. */
export function passAtKPlot(series: readonly PassAtKSeries[], options: PassAtKPlotOptions): string {
  const size = options.size ?? DEFAULT_PLOT_SIZE;
  const frame = frameOf(size);
  const ks = [...new Set(series.flatMap((s) => s.points.map((p) => p.k)))].sort((a, b) => a - b);
  if (ks.length === 0 || ks.some((k) => !(k >= 1))) throw new RangeError('pass@k plot: needs at least one point, every k ≥ 1');
  const kMax = Math.max(ks[ks.length - 1], ks[0] * 2);
  const x = scaleLog().base(2).domain([ks[0], kMax]).range([frame.left, frame.right]);
  const y = scaleLinear()
    .domain(options.yDomain ? [...options.yDomain] : bandExtent(series))
    .range([frame.bottom, frame.top]);
  if (!options.yDomain) y.nice(5);

  const body = series.flatMap((s, i) => {
    const color = seriesColor(i);
    const points = [...s.points].sort((a, b) => a.k - b.k);
    const band = area<PassAtKPoint>()
      .x((p) => x(p.k))
      .y0((p) => y(p.value - p.se))
      .y1((p) => y(p.value + p.se))(points);
    const path = line<PassAtKPoint>()
      .x((p) => x(p.k))
      .y((p) => y(p.value))(points);
    return [
      element('g', { class: 'series', 'data-label': s.label }, [
        element('path', { class: 'band', d: band ?? '', fill: color, 'fill-opacity': 0.18, stroke: 'none' }),
        element('path', { class: 'line', d: path ?? '', fill: 'none', stroke: color, 'stroke-width': 2 }),
        ...points.map((p) => element('circle', { class: 'point', cx: x(p.k), cy: y(p.value), r: 3, fill: color, 'data-k': p.k, 'data-value': p.value })),
      ]),
    ];
  });
  return renderChart({
    size,
    title: options.title,
    subtitle: options.subtitle,
    x: { at: x, ticks: ks, format: String, label: 'k (samples per problem, log scale)' },
    y: { at: y, ticks: y.ticks(5), format: y.tickFormat(5), label: options.yLabel ?? 'pass@k' },
    legend: series.map((s, i) => ({ label: s.label, color: seriesColor(i), mark: 'band' as const })),
    body,
  });
}

function bandExtent(series: readonly PassAtKSeries[]): [number, number] {
  const points = series.flatMap((s) => s.points);
  let low = Math.max(0, Math.min(...points.map((p) => p.value - p.se)));
  let high = Math.min(1, Math.max(...points.map((p) => p.value + p.se)));
  if (high - low < 0.02) {
    low = Math.max(0, low - 0.05);
    high = Math.min(1, high + 0.05);
  }
  return [low, high];
}
