import { element, num } from './svg.ts';

export interface PlotSize {
  width: number;
  height: number;
}

export const DEFAULT_PLOT_SIZE: PlotSize = { width: 720, height: 420 };

/** The inner plotting area in pixels; the title sits above it, axis labels below and left, the legend right. */
export interface Frame {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

const LEGEND_WIDTH = 170;
/** Characters of an 11 px label that fit beside a swatch in the legend column (DejaVu Sans averages ~6.8 px). */
const LEGEND_CHARS = 18;

/** Long labels (model paths, mostly) keep their informative tail. */
export const legendText = (label: string): string => (label.length <= LEGEND_CHARS ? label : `…${label.slice(label.length - LEGEND_CHARS + 1)}`);

export function frameOf(size: PlotSize): Frame {
  return { left: 64, top: 44, right: size.width - LEGEND_WIDTH, bottom: size.height - 52 };
}

export interface Axis {
  /** Data value → pixel. */
  at: (value: number) => number;
  ticks: readonly number[];
  format: (value: number) => string;
  label: string;
}

export interface LegendEntry {
  label: string;
  color: string;
  /** line: a stroke; band: a stroke over a shaded swatch; dot: a marker. */
  mark: 'line' | 'band' | 'dot';
}

export interface ChartSpec {
  size: PlotSize;
  title: string;
  subtitle?: string;
  x: Axis;
  y: Axis;
  legend: readonly LegendEntry[];
  /** Marks drawn inside the frame, clipped to it. */
  body: readonly string[];
}

const FONT = 'DejaVu Sans, Helvetica, Arial, sans-serif';

/** A complete standalone SVG document: white background, frame, ticks with grid lines, axis labels, title, legend. */
export function renderChart(spec: ChartSpec): string {
  const { size } = spec;
  const frame = frameOf(size);
  const parts = [
    element('rect', { width: size.width, height: size.height, fill: '#ffffff' }),
    element('defs', {}, [element('clipPath', { id: 'plot-area' }, [element('rect', { x: frame.left, y: frame.top, width: frame.right - frame.left, height: frame.bottom - frame.top })])]),
    element('text', { class: 'title', x: frame.left, y: 22, 'font-size': 15, 'font-weight': 'bold' }, spec.title),
    ...(spec.subtitle ? [element('text', { class: 'subtitle', x: frame.left, y: 37, 'font-size': 11, fill: '#444444' }, spec.subtitle)] : []),
    xAxis(spec.x, frame),
    yAxis(spec.y, frame),
    element('g', { class: 'marks', 'clip-path': 'url(#plot-area)' }, spec.body),
    element('rect', { class: 'frame', x: frame.left, y: frame.top, width: frame.right - frame.left, height: frame.bottom - frame.top, fill: 'none', stroke: '#333333' }),
    legend(spec.legend, frame),
  ];
  return `${element('svg', { xmlns: 'http://www.w3.org/2000/svg', width: size.width, height: size.height, viewBox: `0 0 ${size.width} ${size.height}`, 'font-family': FONT }, parts)}\n`;
}

function xAxis(axis: Axis, frame: Frame): string {
  const ticks = axis.ticks.map((value) => {
    const x = axis.at(value);
    return element('g', { class: 'tick', 'data-value': value }, [
      element('line', { x1: x, x2: x, y1: frame.top, y2: frame.bottom, stroke: '#e5e5e5' }),
      element('line', { x1: x, x2: x, y1: frame.bottom, y2: frame.bottom + 5, stroke: '#333333' }),
      element('text', { x, y: frame.bottom + 18, 'text-anchor': 'middle', 'font-size': 11 }, axis.format(value)),
    ]);
  });
  const label = element('text', { class: 'axis-label', x: (frame.left + frame.right) / 2, y: frame.bottom + 40, 'text-anchor': 'middle', 'font-size': 12 }, axis.label);
  return element('g', { class: 'x-axis' }, [...ticks, label]);
}

function yAxis(axis: Axis, frame: Frame): string {
  const ticks = axis.ticks.map((value) => {
    const y = axis.at(value);
    return element('g', { class: 'tick', 'data-value': value }, [
      element('line', { x1: frame.left, x2: frame.right, y1: y, y2: y, stroke: '#e5e5e5' }),
      element('line', { x1: frame.left - 5, x2: frame.left, y1: y, y2: y, stroke: '#333333' }),
      element('text', { x: frame.left - 8, y: y + 4, 'text-anchor': 'end', 'font-size': 11 }, axis.format(value)),
    ]);
  });
  const cy = (frame.top + frame.bottom) / 2;
  const label = element('text', { class: 'axis-label', x: 16, y: cy, 'text-anchor': 'middle', 'font-size': 12, transform: `rotate(-90 16 ${num(cy)})` }, axis.label);
  return element('g', { class: 'y-axis' }, [...ticks, label]);
}

function legend(entries: readonly LegendEntry[], frame: Frame): string {
  const x = frame.right + 16;
  const items = entries.map((entry, i) => {
    const y = frame.top + 10 + i * 20;
    const swatch =
      entry.mark === 'dot'
        ? [element('circle', { cx: x + 11, cy: y, r: 4, fill: entry.color })]
        : [
            ...(entry.mark === 'band' ? [element('rect', { x, y: y - 6, width: 22, height: 12, fill: entry.color, 'fill-opacity': 0.2 })] : []),
            element('line', { x1: x, x2: x + 22, y1: y, y2: y, stroke: entry.color, 'stroke-width': 2 }),
          ];
    return element('g', { class: 'legend-entry', 'data-label': entry.label }, [
      element('title', {}, entry.label),
      ...swatch,
      element('text', { x: x + 30, y: y + 4, 'font-size': 11 }, legendText(entry.label)),
    ]);
  });
  return element('g', { class: 'legend' }, items);
}
