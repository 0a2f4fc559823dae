import { scaleLinear } from 'd3-scale';
import { DEFAULT_PLOT_SIZE, frameOf, renderChart, type PlotSize } from './chart.ts';
import { seriesColor } from './palette.ts';
import { element } from './svg.ts';

export interface DisplacedToken {
  /** The reference model's log(p_ref(t) / p_junior(t)). */
  x: number;
  /** The candidate's log(p_cand(t) / p_junior(t)) for the same token. */
  y: number;
  /** Legend group, e.g. whether the candidate shifts back toward the junior. */
  group: string;
  token?: string;
}

export interface DisplacementScatterOptions {
  title: string;
  subtitle?: string;
  xLabel: string;
  yLabel: string;
  /** The dotted guide y = x (default: the candidate equals the reference) or y = −x (the candidate undoes it). */
  diagonal?: 1 | -1;
  size?: PlotSize;
}

/**
 * The tandem paper's Figure 4 (right): the tokens a reference model displaces most, at their reference log-ratio
 * (x) and the candidate's (y), with the zero lines and a diagonal guide drawn.
 * Both axes share one symmetric range so the diagonal is at 45°.
 */
export function displacementScatter(points: readonly DisplacedToken[], options: DisplacementScatterOptions): string {
  const size = options.size ?? DEFAULT_PLOT_SIZE;
  const frame = frameOf(size);
  if (points.length === 0) throw new RangeError('displacement scatter: needs at least one point');
  const reach = Math.max(...points.map((p) => Math.max(Math.abs(p.x), Math.abs(p.y)))) || 1;
  const x = scaleLinear().domain([-reach, reach]).range([frame.left, frame.right]).nice(6);
  const y = scaleLinear().domain(x.domain()).range([frame.bottom, frame.top]);
  const [low, high] = x.domain();
  const slope = options.diagonal ?? 1;
  const groups = [...new Set(points.map((p) => p.group))];
  const colorOf = (group: string) => seriesColor(groups.indexOf(group));

  const guides = [
    element('line', { class: 'zero', x1: x(0), x2: x(0), y1: frame.top, y2: frame.bottom, stroke: '#888888', 'stroke-dasharray': '4 3' }),
    element('line', { class: 'zero', x1: frame.left, x2: frame.right, y1: y(0), y2: y(0), stroke: '#888888', 'stroke-dasharray': '4 3' }),
    element('line', { class: 'diagonal', x1: x(low), y1: y(slope * low), x2: x(high), y2: y(slope * high), stroke: '#888888', 'stroke-dasharray': '1 3' }),
  ];
  const marks = groups.map((group) =>
    element(
      'g',
      { class: 'series', 'data-label': group },
      points.filter((p) => p.group === group).map((p) => element('circle', { class: 'point', cx: x(p.x), cy: y(p.y), r: 2.5, fill: colorOf(group), 'fill-opacity': 0.7, 'data-token': p.token })),
    ),
  );
  return renderChart({
    size,
    title: options.title,
    subtitle: options.subtitle,
    x: { at: x, ticks: x.ticks(6), format: x.tickFormat(6), label: options.xLabel },
    y: { at: y, ticks: y.ticks(6), format: y.tickFormat(6), label: options.yLabel },
    legend: groups.map((group) => ({ label: group, color: colorOf(group), mark: 'dot' as const })),
    body: [...guides, ...marks],
  });
}
