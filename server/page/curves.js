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
 * What the smoothing slider draws, as TensorBoard does: an exponential moving average with `weight` on the past
 * (0: the values themselves), debiased at the start so the first points are not pulled toward 0; gaps left as gaps.
 * It changes what is drawn only: captions, the best point, the values at the cursor and the CSV read the raw values.
 * @param {readonly (number | null)[]} values
 * @param {number} weight
 */
export function smoothed(values, weight) {
  if (weight <= 0) return values.slice();
  let last = 0;
  let seen = 0;
  return values.map((value) => {
    if (value === null || value === undefined) return null;
    last = weight * last + (1 - weight) * value;
    seen += 1;
    return last / (1 - weight ** seen);
  });
}

/**
 * The y range a figure's values call for: their span with 8% room on each side, never a made-up 0–100 for a flat
 * series (a flat series gets ±10% of its value, or ±1 at 0); on a log scale, whole decades around the values.
 * @param {number | null} min
 * @param {number | null} max
 * @param {boolean} log
 * @returns {[number, number]}
 */
export function fittedRange(min, max, log) {
  if (min === null || max === null || !Number.isFinite(min) || !Number.isFinite(max)) return [0, 1];
  if (log) return [10 ** Math.floor(Math.log10(min)), 10 ** Math.ceil(Math.log10(max) + (min === max ? 1e-9 : 0))];
  if (min === max) {
    const pad = min === 0 ? 1 : Math.abs(min) * 0.1;
    return [min - pad, max + pad];
  }
  const pad = (max - min) * 0.08;
  return [min - pad, max + pad];
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
 * The figure's values: the union of every series' x, each series null where it has no point.
 * @param {Figure} figure
 * @param {MetricsOf} metricsOf
 * @param {Axis} axis
 * @returns {Table}
 */
function tableOf(figure, metricsOf, axis) {
  const xs = [...new Set(figure.series.flatMap((s) => pointsOf(metricsOf(s.run), axis).filter((p) => p.metrics[s.key] !== undefined).map((p) => p.x)))].sort((a, b) => a - b);
  const at = new Map(xs.map((x, i) => [x, i]));
  const columns = figure.series.map((s) => {
    /** @type {(number | null)[]} */
    const column = xs.map(() => null);
    for (const point of pointsOf(metricsOf(s.run), axis)) {
      const i = at.get(point.x);
      if (point.metrics[s.key] !== undefined && i !== undefined) column[i] = point.metrics[s.key];
    }
    return column;
  });
  return [xs, ...columns];
}

/**
 * What uPlot draws of a table: each series smoothed (weight 0: as it is).
 * @param {Table} table
 * @param {number} weight
 * @returns {Table}
 */
const drawnOf = ([xs, ...columns], weight) => [xs, ...columns.map((column) => smoothed(column, weight))];

/**
 * Whether every value of a table is above 0 (a log scale can show it).
 * @param {Table} table
 */
const allPositive = ([, ...columns]) => columns.every((column) => column.every((value) => value === null || value > 0));

/**
 * A number as the readout and the CSV write it: as recorded, at most 6 significant digits.
 * @param {number} value
 */
const exact = (value) => (Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(6))));

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
    /** @type {{ runs: readonly string[], axis: Axis, smooth: number, log: boolean, headlineCount: number }} */
    this.settings = { runs: [], axis: 'step', smooth: 0, log: false, headlineCount: 0 };
    /**
     * Which folded sections are open, kept across redraws: both shut until toggled, so the headline and the match
     * being played share the first screen.
     */
    this.open = { more: false, internals: false };
    /** Whether the user has opened or shut a section (the defaults then no longer apply). */
    this.toggled = false;
  }

  /**
   * Draws `runs` (one, or several overlaid) with `headline`; rebuilds only when the set of figures changed.
   * `smooth` is the smoothing weight (0: none); `log` draws every figure whose values are all above 0 on a log scale.
   * @param {{ runs: readonly string[], headline?: readonly string[], axis: string, smooth: number, log: boolean }} what
   */
  draw({ runs, headline, axis: axisName, smooth, log }) {
    /** @type {Axis} */
    const axis = axisName === 'tokens' ? 'tokens' : 'step';
    const figures = figuresOf(runs, this.metricsOf, headline ?? DEFAULT_HEADLINE);
    const layout = JSON.stringify([runs, axis, smooth, log, figures.map((f) => [f.id, f.series.map((s) => s.key + s.run)])]);
    if (layout === this.layout) return this.update();
    this.layout = layout;
    for (const { chart } of this.charts) chart.destroy();
    this.charts = [];
    this.settings = { runs, axis, smooth, log, headlineCount: figures.filter((f) => f.section === 'headline').length };
    // Without a headline figure (a tournament's games record their updates' numbers only), the rest opens at once.
    const headlineless = this.settings.headlineCount === 0 && !this.toggled;
    const sections = {
      headline: el('div', { className: 'headline', id: 'headline' }),
      more: el('details', { className: 'more-curves', open: this.open.more || headlineless }),
      internals: el('details', { className: 'internals', open: this.open.internals }),
    };
    sections.more.append(el('summary', {}, 'more curves'));
    sections.internals.append(el('summary', {}, 'engine internals (learning rate, micro-batches, skipped updates, timing)'));
    for (const name of /** @type {const} */ (['more', 'internals'])) {
      sections[name].querySelector('summary')?.addEventListener('click', () => (this.toggled = true));
      // Only a person's toggle is kept: the page's own opening (a run without headline curves) is not a choice.
      sections[name].addEventListener('toggle', () => {
        if (this.toggled) this.open[name] = sections[name].open;
      });
    }
    const bodies = { headline: sections.headline, more: el('div', { className: 'charts' }), internals: el('div', { className: 'charts' }) };
    sections.more.append(bodies.more);
    sections.internals.append(bodies.internals);
    this.box.replaceChildren(...Object.entries(sections).filter(([name]) => figures.some((f) => f.section === name)).map(([, node]) => node));
    for (const figure of figures) this.charts.push({ figure, chart: this.chart(figure, bodies[figure.section]) });
  }

  update() {
    for (const { figure, chart } of this.charts) {
      const table = tableOf(figure, this.metricsOf, this.settings.axis);
      Object.assign(chart, { raw: table });
      chart.setData(drawnOf(table, this.settings.smooth));
      const caption = chart.root.parentElement?.querySelector('figcaption');
      if (caption) this.caption(figure, table, caption);
    }
  }

  /**
   * The caption: what the figure shows, and for validation accuracy the best point of the raw values (smoothing
   * never changes a reported figure).
   * @param {Figure} figure
   * @param {Table} table the raw values
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
    const readout = el('div', { className: 'readout' }, 'hover for the values');
    const csv = el('button', { type: 'button', className: 'csv', title: 'download these series as CSV (the raw values)' }, 'csv');
    const tools = el('div', { className: 'figure-tools' });
    tools.append(readout, csv);
    node.append(caption, tools);
    parent.append(node);
    const overlaid = this.settings.runs.length > 1;
    const whos = [...new Set(figure.series.map((s) => s.who))];
    const table = tableOf(figure, this.metricsOf, this.settings.axis);
    const log = this.settings.log && allPositive(table);
    this.caption(figure, table, caption);
    if (this.settings.log && !log) caption.append(el('span', { className: 'hint' }, ' · linear: has values ≤ 0'));
    const size = figure.section === 'headline' ? this.headlineSize() : SIZES.other;
    const series = figure.series.map((s) => {
      const color = overlaid ? runColor(this.settings.runs.indexOf(s.run)) : colorOf(s.who || figure.name);
      return { label: labelOf(s, overlaid), stroke: color, width: figure.section === 'headline' ? 2 : 1.5, dash: overlaid ? dashOf(whos.indexOf(s.who)) : undefined, spanGaps: true, points: { show: true, size: figure.section === 'headline' ? 6 : 4, fill: color } };
    });
    const xName = this.settings.axis === 'tokens' ? 'tokens seen' : 'step';
    /** @type {uPlot.Options} */
    const options = {
      ...size,
      legend: { show: true, live: false },
      scales: {
        x: { time: false },
        // Fitted to the raw values (a smoothed line lies within them), the same with smoothing on or off.
        y: { ...(log ? { distr: 3 } : {}), range: (u) => rawRange(u, log) },
      },
      axes: [
        { label: xName, size: 36, ...(this.settings.axis === 'tokens' ? {} : { incrs: STEP_TICKS }) },
        { label: figure.name, size: 60, values: (_u, ticks) => ticks.map((tick) => Number(tick.toPrecision(3)).toString()) },
      ],
      series: [{ label: this.settings.axis === 'tokens' ? 'tokens' : 'step' }, ...series],
      hooks: {
        setCursor: [(u) => showValues(u, readout, xName, this.settings.smooth)],
        ...(marksBest(figure) ? { draw: [(u) => drawBest(u, series)] } : {}),
      },
    };
    /** @type {uPlot & { raw?: Table }} */
    const chart = new uPlot(options, drawnOf(table, this.settings.smooth), node);
    chart.raw = table;
    chart.setData(drawnOf(table, this.settings.smooth));
    csv.onclick = () => downloadCsv(`${overlaid ? 'runs' : this.settings.runs[0]}-${figure.kind ? `${figure.kind}-` : ''}${figure.name}.csv`, xName, series.map((s) => s.label), chart.raw ?? table);
    Object.assign(node, { uplot: chart });
    return chart;
  }
}

/**
 * The y range of a chart's raw values (what the smoothed line is drawn from), fitted to them.
 * @param {uPlot & { raw?: Table }} u
 * @param {boolean} log
 */
function rawRange(u, log) {
  const columns = u.raw ? u.raw.slice(1) : u.data.slice(1);
  /** @type {number[]} */
  const values = columns.flatMap((column) => Array.from(column).flatMap((v) => (v !== null && v !== undefined && Number.isFinite(v) ? [v] : [])));
  return fittedRange(values.length > 0 ? Math.min(...values) : null, values.length > 0 ? Math.max(...values) : null, log);
}

/**
 * The value of every series at the cursor's point, as recorded (with the smoothed value beside it while smoothing).
 * @param {uPlot & { raw?: Table }} u
 * @param {HTMLElement} readout
 * @param {string} xName
 * @param {number} smooth
 */
function showValues(u, readout, xName, smooth) {
  const i = u.cursor.idx;
  const raw = u.raw;
  if (i === null || i === undefined || !raw) {
    readout.textContent = 'hover for the values';
    delete readout.dataset.index;
    return;
  }
  const parts = u.series.slice(1).map((series, s) => {
    const value = raw[s + 1]?.[i];
    const drawn = u.data[s + 1]?.[i];
    const shown = value === null || value === undefined ? '—' : exact(value);
    return `${series.label} ${shown}${smooth > 0 && drawn !== null && drawn !== undefined && value !== null && value !== undefined ? ` (smoothed ${exact(drawn)})` : ''}`;
  });
  readout.textContent = `${xName} ${raw[0][i]}: ${parts.join(' · ')}`;
  readout.dataset.index = String(i);
}

/**
 * A chart's raw values as a CSV file the browser downloads: a column for x, one per series, empty where a series has
 * no point.
 * @param {string} name
 * @param {string} xName
 * @param {readonly string[]} labels
 * @param {Table} table
 */
function downloadCsv(name, xName, labels, table) {
  const quote = (/** @type {string} */ text) => (/[",\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text);
  const rows = table[0].map((x, i) => [String(x), ...table.slice(1).map((column) => (column[i] === null || column[i] === undefined ? '' : String(column[i])))].join(','));
  const text = `${[xName, ...labels].map(quote).join(',')}\n${rows.join('\n')}\n`;
  const link = el('a', { href: URL.createObjectURL(new Blob([text], { type: 'text/csv' })), download: name.replace(/[^\w.-]+/g, '_') });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
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
 * A ring around each series' best point (validation accuracy) as recorded, in the series' colour.
 * @param {uPlot & { raw?: Table }} u
 * @param {readonly { stroke: string }[]} series
 */
function drawBest(u, series) {
  const best = bestOf(u.raw ?? u.data);
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
