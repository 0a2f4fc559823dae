import { scaleLinear } from 'd3-scale';
import { area, line } from 'd3-shape';
import { DEFAULT_PLOT_SIZE, frameOf, renderChart, type PlotSize } from './chart.ts';
import { seriesColor } from './palette.ts';
import { element } from './svg.ts';

export interface LinePoint {
  x: number;
  y: number;
  /** An uncertainty band around y (both or neither): shaded under the line. */
  lo?: number;
  hi?: number;
}

export interface LineSeries {
  label: string;
  points: ReadonlyArray<LinePoint>;
}

export interface LinePlotOptions {
  title: string;
  subtitle?: string;
  xLabel: string;
  yLabel: string;
  /** Fixed y range; by default the data's, made nice. */
  yDomain?: readonly [number, number];
  size?: PlotSize;
}

/** Lines over a linear x (training curves: a metric per optimizer step; rating trajectories), one per series, over their bands where points carry them. */
export function linePlot(series: readonly LineSeries[], options: LinePlotOptions): string {
  const size = options.size ?? DEFAULT_PLOT_SIZE;
  const frame = frameOf(size);
  const points = series.flatMap((s) => s.points);
  if (points.length === 0) throw new RangeError('line plot: needs at least one point');
  const xs = points.map((p) => p.x);
  const ys = points.flatMap((p) => [p.y, ...(p.lo === undefined || p.hi === undefined ? [] : [p.lo, p.hi])]);
  const [xMin, xMax] = [Math.min(...xs), Math.max(...xs)];
  const x = scaleLinear().domain([xMin, xMax > xMin ? xMax : xMin + 1]).range([frame.left, frame.right]);
  const [yMin, yMax] = [Math.min(...ys), Math.max(...ys)];
  const y = scaleLinear()
    .domain(options.yDomain ? [...options.yDomain] : [yMin, yMax > yMin ? yMax : yMin + 1])
    .range([frame.bottom, frame.top]);
  if (!options.yDomain) y.nice(5);
  const banded = (s: LineSeries) => s.points.length > 0 && s.points.every((p) => p.lo !== undefined && p.hi !== undefined);
  const body = series.map((s, i) => {
    const sorted = [...s.points].sort((a, b) => a.x - b.x);
    const path = line<LinePoint>()
      .x((p) => x(p.x))
      .y((p) => y(p.y))(sorted);
    const band = banded(s)
      ? [
          element('path', {
            class: 'band',
            d:
              area<LinePoint>()
                .x((p) => x(p.x))
                .y0((p) => y(p.lo ?? p.y))
                .y1((p) => y(p.hi ?? p.y))(sorted) ?? '',
            fill: seriesColor(i),
            'fill-opacity': 0.15,
            stroke: 'none',
          }),
        ]
      : [];
    return element('g', { class: 'series', 'data-label': s.label }, [...band, element('path', { class: 'line', d: path ?? '', fill: 'none', stroke: seriesColor(i), 'stroke-width': 1.5 })]);
  });
  return renderChart({
    size,
    title: options.title,
    subtitle: options.subtitle,
    x: { at: x, ticks: x.ticks(6), format: x.tickFormat(6), label: options.xLabel },
    y: { at: y, ticks: y.ticks(5), format: y.tickFormat(5), label: options.yLabel },
    legend: series.map((s, i) => ({ label: s.label, color: seriesColor(i), mark: banded(s) ? ('band' as const) : ('line' as const) })),
    body,
  });
}
