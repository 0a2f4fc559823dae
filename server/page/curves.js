// Training curves: the game's headline first and larger, the rest below, engine internals folded away; one run's
// series coloured by role (or policy), or several runs overlaid, coloured by run, against steps or tokens seen.
import uPlot from '/vendor/uplot.esm.js';
import { colorOf, dashOf, runColor } from './colors.js';
import { el } from './dom.js';

/** @typedef {{ step: number, metrics: Record<string, number> }} Point */
/** @typedef {(run: string) => readonly Point[]} MetricsOf */
/** @typedef {'step' | 'tokens'} Axis */
/** @typedef {'headline' | 'more' | 'internals'} Section */
/** @typedef {{ run: string, who: string, key: string }} Series */
/** @typedef {{ id: string, section: Section, rank: number, name: string, kind: string, series: Series[] }} Figure */
/** @typedef {{ kind: string, who: string, name: string }} Parts */
/** @typedef {[number[], ...(number | null)[][]]} Table uPlot's table: the x values, then a column per series (null: no point). */

/** Numbers about the machinery rather than the learning: folded into a closed section. */
const INTERNALS = new Set(['lr', 'micro_batches', 'skipped_nonfinite', 'seconds', 'tokens', 'zero_variance_groups', 'dropped']);
/** The order of the curves below the headline (others follow by name). */
const ORDER = ['reward_mean', 'correct', 'accuracy', 'answer_present', 'share', 'response_len', 'loss', 'grad_norm', 'clip_frac', 'entropy'];
const DEFAULT_HEADLINE = ['role/*/reward_mean', 'role/*/correct', 'validation/*/accuracy'];
const SIZES = { headline: { width: 440, height: 230 }, other: { width: 320, height: 170 } };
/** Steps are whole: the x axis ticks at whole numbers only. */
const STEP_TICKS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000];

/**
 * `kind/who/name` → its parts; a bare name has no kind and one series named ''.
 * @param {string} key
 * @returns {Parts}
 */
function partsOf(key) {
  const parts = key.split('/');
  return parts.length === 3 ? { kind: parts[0], who: parts[1], name: parts[2] } : { kind: '', who: '', name: key };
}

/** @type {(parts: Parts) => string} */
const figureId = ({ kind, name }) => (kind ? `${kind}/${name}` : name);

/**
 * Which headline entry (its index) a metric key answers, or -1.
 * @param {readonly string[]} headline
 * @param {string} key
 */
function headlineIndex(headline, key) {
  const { kind, who, name } = partsOf(key);
  return headline.findIndex((pattern) => {
    const p = partsOf(pattern);
    return p.kind === kind && p.name === name && (p.who === '*' || p.who === who);
  });
}

/**
 * The figures the runs' metrics call for: one per metric name and kind, a series per (run, role or policy) that has
 * it, each in one section: `headline` (in the headline's order), `more`, or `internals`.
 * @param {readonly string[]} runs
 * @param {MetricsOf} metricsOf
 * @param {readonly string[]} headline
 * @returns {Figure[]}
 */
export function figuresOf(runs, metricsOf, headline) {
  /** @type {Map<string, Figure>} */
  const figures = new Map();
  for (const run of runs) {
    for (const point of metricsOf(run)) {
      for (const key of Object.keys(point.metrics)) {
        const parts = partsOf(key);
        const rank = headlineIndex(headline, key);
        /** @type {Section} */
        const section = rank >= 0 ? 'headline' : INTERNALS.has(parts.name) ? 'internals' : 'more';
        const id = `${section}:${figureId(parts)}`;
        const figure = figures.get(id) ?? { id, section, rank, name: parts.name, kind: parts.kind, series: [] };
        figures.set(id, figure);
        if (!figure.series.some((s) => s.run === run && s.key === key)) figure.series.push({ run, who: parts.who, key });
      }
    }
  }
  /** @param {Figure} figure */
  const order = (figure) => (figure.section === 'headline' ? figure.rank : ORDER.includes(figure.name) ? ORDER.indexOf(figure.name) : ORDER.length + (figure.name.startsWith('kl_to_') ? 0 : 1));
  for (const figure of figures.values()) figure.series.sort((a, b) => runs.indexOf(a.run) - runs.indexOf(b.run) || a.who.localeCompare(b.who));
  return [...figures.values()].sort((a, b) => order(a) - order(b) || a.id.localeCompare(b.id));
}

/**
 * Exponential moving average (weight 0.3 on each new point), gaps left as gaps: what "smooth" draws.
 * @param {readonly (number | null)[]} values
 */
function smoothed(values) {
  /** @type {number | null} */
  let last = null;
  return values.map((value) => (value === null || value === undefined ? null : (last = last === null ? value : 0.3 * value + 0.7 * last)));
}

/**
 * A run's points by step, each with its x: the step, or the response tokens sampled up to and including it.
 * @param {readonly Point[]} points
 * @param {Axis} axis
 */
function pointsOf(points, axis) {
  const sorted = [...points].sort((a, b) => a.step - b.step);
  let seen = 0;
  return sorted.map((point) => {
    seen += point.metrics.tokens ?? 0;
    return { x: axis === 'tokens' ? seen : point.step, metrics: point.metrics };
  });
}

/**
 * The table uPlot draws: the union of every series' x, each series null where it has no point.
 * @param {Figure} figure
 * @param {MetricsOf} metricsOf
 * @param {Axis} axis
 * @param {boolean} smooth
 * @returns {Table}
 */
function tableOf(figure, metricsOf, axis, smooth) {
  const xs = [...new Set(figure.series.flatMap((s) => pointsOf(metricsOf(s.run), axis).filter((p) => p.metrics[s.key] !== undefined).map((p) => p.x)))].sort((a, b) => a - b);
  const at = new Map(xs.map((x, i) => [x, i]));
  const columns = figure.series.map((s) => {
    /** @type {(number | null)[]} */
    const column = xs.map(() => null);
    for (const point of pointsOf(metricsOf(s.run), axis)) {
      const i = at.get(point.x);
      if (point.metrics[s.key] !== undefined && i !== undefined) column[i] = point.metrics[s.key];
    }
    return smooth ? smoothed(column) : column;
  });
  return [xs, ...columns];
}

/**
 * The best point of each series of a validation accuracy figure: a ring drawn on it, and a caption.
 * @param {uPlot.AlignedData} table
 * @returns {({ x: number, y: number } | null)[]}
 */
function bestOf(table) {
  const [xs, ...columns] = table;
  return columns.map((column) => {
    /** @type {{ x: number, y: number } | null} */
    let best = null;
    column.forEach((value, i) => {
      const x = xs?.[i];
      if (value !== null && value !== undefined && x !== null && x !== undefined && (best === null || value > best.y)) best = { x, y: value };
    });
    return best;
  });
}

/** @param {Figure} figure */
const marksBest = (figure) => figure.kind === 'validation' && figure.name === 'accuracy';

export class Curves {
  /**
   * @param {HTMLElement} box
   * @param {MetricsOf} metricsOf
   */
  constructor(box, metricsOf) {
    this.box = box;
    this.metricsOf = metricsOf;
    /** @type {{ figure: Figure, chart: uPlot }[]} */
    this.charts = [];
    this.layout = '';
    /** @type {{ runs: readonly string[], axis: Axis, smooth: boolean, headlineCount: number }} */
    this.settings = { runs: [], axis: 'step', smooth: false, headlineCount: 0 };
    /** Which folded sections are open, kept across redraws (more curves open, internals shut, until toggled). */
    this.open = { more: true, internals: false };
  }

  /**
   * Draws `runs` (one, or several overlaid) with `headline`; rebuilds only when the set of figures changed.
   * @param {{ runs: readonly string[], headline?: readonly string[], axis: string, smooth: boolean }} what
   */
  draw({ runs, headline, axis: axisName, smooth }) {
    /** @type {Axis} */
    const axis = axisName === 'tokens' ? 'tokens' : 'step';
    const figures = figuresOf(runs, this.metricsOf, headline ?? DEFAULT_HEADLINE);
    const layout = JSON.stringify([runs, axis, smooth, figures.map((f) => [f.id, f.series.map((s) => s.key + s.run)])]);
    if (layout === this.layout) return this.update();
    this.layout = layout;
    for (const { chart } of this.charts) chart.destroy();
    this.charts = [];
    this.settings = { runs, axis, smooth, headlineCount: figures.filter((f) => f.section === 'headline').length };
    const sections = {
      headline: el('div', { className: 'headline', id: 'headline' }),
      more: el('details', { className: 'more-curves', open: this.open.more }),
      internals: el('details', { className: 'internals', open: this.open.internals }),
    };
    for (const name of /** @type {const} */ (['more', 'internals'])) sections[name].addEventListener('toggle', () => (this.open[name] = sections[name].open));
    sections.more.append(el('summary', {}, 'more curves'));
    sections.internals.append(el('summary', {}, 'engine internals (learning rate, micro-batches, skipped updates, timing)'));
    const bodies = { headline: sections.headline, more: el('div', { className: 'charts' }), internals: el('div', { className: 'charts' }) };
    sections.more.append(bodies.more);
    sections.internals.append(bodies.internals);
    this.box.replaceChildren(...Object.entries(sections).filter(([name]) => figures.some((f) => f.section === name)).map(([, node]) => node));
    for (const figure of figures) this.charts.push({ figure, chart: this.chart(figure, bodies[figure.section]) });
  }

  update() {
    for (const { figure, chart } of this.charts) {
      const table = tableOf(figure, this.metricsOf, this.settings.axis, this.settings.smooth);
      chart.setData(table);
      const caption = chart.root.parentElement?.querySelector('figcaption');
      if (caption) this.caption(figure, table, caption);
    }
  }

  /**
   * @param {Figure} figure
   * @param {Table} table
   * @param {HTMLElement} node
   */
  caption(figure, table, node) {
    const overlaid = this.settings.runs.length > 1;
    const title = `${overlaid ? '' : `${this.settings.runs[0]} · `}${figure.name}${figure.kind ? ` by ${figure.kind}` : ''}`;
    const best = marksBest(figure) ? bestOf(table) : [];
    const series = figure.series;
    const bests = best.flatMap((b, i) => (b ? [`best ${b.y.toFixed(3)} at ${this.settings.axis === 'tokens' ? `${b.x} tokens` : `step ${b.x}`}${series.length > 1 && series[i] ? ` (${labelOf(series[i], overlaid)})` : ''}`] : []));
    node.textContent = bests.length > 0 ? `${title} · ${bests.join('; ')}` : title;
  }

  /** Headline figures share the page's width, up to four in a row, each at least as large as the others. */
  headlineSize() {
    const count = this.settings.headlineCount;
    const width = this.box.clientWidth || 1200;
    const perRow = Math.max(1, Math.min(count, 4, Math.floor(width / SIZES.other.width)));
    return { width: Math.max(SIZES.other.width, Math.min(SIZES.headline.width * 1.4, Math.floor(width / perRow) - 16)), height: SIZES.headline.height };
  }

  /**
   * @param {Figure} figure
   * @param {HTMLElement} parent
   */
  chart(figure, parent) {
    const node = el('figure');
    node.dataset.curve = figure.name;
    node.dataset.kind = figure.kind;
    node.dataset.section = figure.section;
    const caption = el('figcaption');
    node.append(caption);
    parent.append(node);
    const overlaid = this.settings.runs.length > 1;
    const whos = [...new Set(figure.series.map((s) => s.who))];
    const table = tableOf(figure, this.metricsOf, this.settings.axis, this.settings.smooth);
    this.caption(figure, table, caption);
    const size = figure.section === 'headline' ? this.headlineSize() : SIZES.other;
    const series = figure.series.map((s) => {
      const color = overlaid ? runColor(this.settings.runs.indexOf(s.run)) : colorOf(s.who || figure.name);
      return { label: labelOf(s, overlaid), stroke: color, width: figure.section === 'headline' ? 2 : 1.5, dash: overlaid ? dashOf(whos.indexOf(s.who)) : undefined, spanGaps: true, points: { show: true, size: figure.section === 'headline' ? 6 : 4, fill: color } };
    });
    /** @type {uPlot.Options} */
    const options = {
      ...size,
      legend: { show: true, live: false },
      scales: { x: { time: false } },
      axes: [
        { label: this.settings.axis === 'tokens' ? 'tokens seen' : 'step', size: 36, ...(this.settings.axis === 'tokens' ? {} : { incrs: STEP_TICKS }) },
        { label: figure.name, size: 60, values: (_u, ticks) => ticks.map((tick) => Number(tick.toPrecision(3)).toString()) },
      ],
      series: [{ label: this.settings.axis === 'tokens' ? 'tokens' : 'step' }, ...series],
      hooks: marksBest(figure) ? { draw: [(u) => drawBest(u, series)] } : {},
    };
    const chart = new uPlot(options, table, node);
    Object.assign(node, { uplot: chart });
    return chart;
  }
}

/**
 * @param {Series} series
 * @param {boolean} overlaid
 */
function labelOf(series, overlaid) {
  const who = series.who || '';
  return overlaid ? (who ? `${series.run} · ${who}` : series.run) : who || series.key;
}

/**
 * A ring around each series' best point (validation accuracy), in the series' colour.
 * @param {uPlot} u
 * @param {readonly { stroke: string }[]} series
 */
function drawBest(u, series) {
  const best = bestOf(u.data);
  const ctx = u.ctx;
  best.forEach((point, i) => {
    if (!point) return;
    const x = u.valToPos(point.x, 'x', true);
    const y = u.valToPos(point.y, 'y', true);
    ctx.save();
    ctx.strokeStyle = series[i]?.stroke ?? '';
    ctx.lineWidth = 2 * devicePixelRatio;
    ctx.beginPath();
    ctx.arc(x, y, 7 * devicePixelRatio, 0, 2 * Math.PI);
    ctx.stroke();
    ctx.restore();
  });
}
