// A tournament as it is watched or replayed: its leaderboard (μ, σ, games, record), every entrant's μ ± σ after each
// round, and the payoff table as a heat map whose cells list the matches behind them.
import uPlot from '/vendor/uplot.esm.js';
import { mix, runColor } from './colors.js';
import { $, el, round } from './dom.js';

/** @typedef {import('../../core/events.ts').LeaderboardRow} LeaderboardRow */
/** @typedef {import('../../core/tournament/payoff.ts').PayoffTable} PayoffTable */
/** @typedef {import('../wire.ts').RatingHistory} RatingHistory */

const LOW = '#fee2e2';
const HIGH = '#bbf7d0';

/**
 * What the page shows of one tournament: its entrants' rating histories, its latest leaderboard and payoff table.
 * @typedef {{ ratings: readonly RatingHistory[], leaderboard: readonly LeaderboardRow[] | undefined, payoff: PayoffTable | undefined }} Shown
 */

export class Tournament {
  /**
   * `between(row, column)` lists the matches of a payoff cell.
   * @param {{ between: (row: string, column: string) => void }} callbacks
   */
  constructor({ between }) {
    this.between = between;
    /** @type {uPlot | null} */
    this.chart = null;
    this.entrants = '';
  }

  /** @param {Shown} shown */
  show({ ratings, leaderboard, payoff }) {
    const any = ratings.length > 0 || (leaderboard?.length ?? 0) > 0 || Object.keys(payoff ?? {}).length > 0;
    $('tournament').hidden = !any;
    this.leaderboard(leaderboard ?? []);
    this.drawRatings(ratings);
    this.payoff(payoff);
  }

  /**
   * The leaderboard: rank by μ − 3σ, with μ ± σ, the games played and the record.
   * @param {readonly LeaderboardRow[]} rows
   */
  leaderboard(rows) {
    const box = $('leaderboard');
    if (rows.length === 0) return box.replaceChildren();
    const table = el('table', { className: 'leaderboard' });
    table.append(el('caption', {}, 'leaderboard: ranked by μ − 3σ (openskill), a rating that is sure to within 3σ'));
    const head = el('tr');
    head.append(...['#', 'entrant', 'μ − 3σ', 'μ ± σ', 'games', 'won–drawn–lost'].map((name) => el('th', {}, name)));
    table.append(head);
    for (const row of rows) {
      const tr = el('tr');
      tr.dataset.entrant = row.entrant;
      const name = `${row.entrant}${row.trainable ? ' (trains)' : ''}${row.snapshotOf ? ` (snapshot of ${row.snapshotOf})` : ''}`;
      tr.append(
        el('td', {}, String(row.rank)),
        el('td', { className: 'entrant' }, name),
        el('td', {}, row.ordinal.toFixed(2)),
        el('td', {}, `${row.mu.toFixed(2)} ± ${row.sigma.toFixed(2)}`),
        el('td', {}, round(Number(row.games.toFixed(2)))),
        el('td', {}, [row.wins, row.draws, row.losses].map((n) => round(Number(n.toFixed(2)))).join('–')),
      );
      table.append(tr);
    }
    box.replaceChildren(table);
  }

  /**
   * Every entrant's μ after each round as a line, its ± σ as a band around it: a draw moves no μ but narrows every
   * band, which is why μ − 3σ (the leaderboard's rating) rises on draws for everyone alike.
   * @param {readonly RatingHistory[]} ratings
   */
  drawRatings(ratings) {
    const box = $('ratings');
    if (ratings.length === 0) {
      this.chart?.destroy();
      this.chart = null;
      this.entrants = '';
      return box.replaceChildren();
    }
    const rated = [...ratings].sort((a, b) => (a.entrant < b.entrant ? -1 : a.entrant > b.entrant ? 1 : 0));
    const rounds = [...new Set(rated.flatMap((r) => r.points.map((p) => p.round)))].sort((a, b) => a - b);
    /** @param {RatingHistory} rating @param {(p: RatingHistory['points'][number]) => number} pick */
    const column = (rating, pick) => rounds.map((r) => {
      const point = rating.points.find((p) => p.round === r);
      return point ? pick(point) : null;
    });
    const sigmas = rated.map((rating) => column(rating, (p) => p.sigma));
    /** @type {uPlot.AlignedData} */
    const table = [rounds, ...rated.map((rating) => column(rating, (p) => p.mu))];
    const entrants = rated.map((r) => r.entrant).join('\u0000');
    const bands = { sigmas };
    if (this.chart && this.entrants === entrants) {
      Object.assign(this.chart, { bands });
      return this.chart.setData(table);
    }
    this.chart?.destroy();
    this.entrants = entrants;
    box.replaceChildren();
    const figure = el('figure');
    figure.dataset.curve = 'rating';
    figure.append(el('figcaption', {}, 'μ after each round, the band ± σ (openskill). The leaderboard ranks by μ − 3σ: σ shrinks with every game, draws too, so μ − 3σ rises for all alike while μ stays put'));
    box.append(figure);
    const chart = new uPlot(
      {
        width: 440,
        height: 230,
        legend: { show: true, live: false },
        scales: { x: { time: false }, y: { range: (u) => bandRange(u) } },
        axes: [{ label: 'round', size: 36, incrs: [1, 2, 5, 10, 20, 50, 100] }, { label: 'μ', size: 60 }],
        // A colour per entrant by its place in the sorted list: entrants of one league never share one.
        series: [{ label: 'round' }, ...rated.map((r, i) => ({ label: r.entrant, stroke: runColor(i), width: 2, points: { show: true, size: 6, fill: runColor(i) } }))],
        hooks: { drawAxes: [(u) => drawBands(u)] },
      },
      table,
      figure,
    );
    Object.assign(chart, { bands });
    this.chart = chart;
    Object.assign(figure, { uplot: chart });
  }

  /**
   * The payoff table (`table[a][b]`: a's wins, draws and losses against b) as a heat map of a's score rate, with counts.
   * @param {PayoffTable | undefined} table
   */
  payoff(table) {
    const entrants = [...new Set(Object.entries(table ?? {}).flatMap(([row, columns]) => [row, ...Object.keys(columns)]))].sort();
    const box = $('payoff');
    if (entrants.length === 0) return box.replaceChildren();
    const table_ = el('table', { className: 'payoff' });
    table_.append(el('caption', {}, 'payoff: row against column, score rate (wins + draws/2 over games)'));
    const head = el('tr');
    head.append(el('th', {}, ''), ...entrants.map((e) => el('th', {}, e)));
    table_.append(head);
    for (const row of entrants) {
      const tr = el('tr');
      tr.append(el('th', {}, row));
      for (const column of entrants) {
        const cell = table?.[row]?.[column];
        const games = cell ? cell.wins + cell.draws + cell.losses : 0;
        const td = el('td');
        if (cell && games > 0) {
          const rate = (cell.wins + cell.draws / 2) / games;
          td.append(el('div', { className: 'payoff-mean' }, rate.toFixed(2)), el('div', { className: 'payoff-count' }, `${round(Number(games.toFixed(2)))} game${games === 1 ? '' : 's'}`));
          td.style.background = mix(LOW, HIGH, rate);
          td.title = `${row} against ${column}: ${round(cell.wins)} won, ${round(cell.draws)} drawn, ${round(cell.losses)} lost; click for the matches`;
          td.dataset.row = row;
          td.dataset.column = column;
          td.dataset.rate = String(rate);
          td.onclick = () => this.between(row, column);
        }
        tr.append(td);
      }
      table_.append(tr);
    }
    box.replaceChildren(table_);
  }
}

/**
 * The chart's σ per series and round, kept on the chart beside its data.
 * @typedef {uPlot & { bands?: { sigmas: (number | null)[][] } }} BandedChart
 */

/**
 * The y range that holds every band (μ ± σ), with a little room.
 * @param {BandedChart} u
 * @returns {[number, number]}
 */
function bandRange(u) {
  let low = Number.POSITIVE_INFINITY;
  let high = Number.NEGATIVE_INFINITY;
  u.data.slice(1).forEach((column, s) =>
    column.forEach((mu, i) => {
      if (mu === null || mu === undefined) return;
      const sigma = u.bands?.sigmas[s]?.[i] ?? 0;
      low = Math.min(low, mu - sigma);
      high = Math.max(high, mu + sigma);
    }),
  );
  if (!Number.isFinite(low)) return [0, 1];
  const pad = Math.max((high - low) * 0.05, 0.5);
  return [low - pad, high + pad];
}

/**
 * Each series' μ ± σ as a translucent band in its colour, under the lines.
 * @param {BandedChart} u
 */
function drawBands(u) {
  const ctx = u.ctx;
  const xs = Array.from(u.data[0]);
  u.data.slice(1).forEach((column, s) => {
    const sigmas = u.bands?.sigmas[s] ?? [];
    const at = xs.flatMap((/** @type {number} */ x, /** @type {number} */ i) => {
      const mu = column[i];
      const sigma = sigmas[i];
      return mu === null || mu === undefined || sigma === null || sigma === undefined ? [] : [{ x: u.valToPos(x, 'x', true), high: u.valToPos(mu + sigma, 'y', true), low: u.valToPos(mu - sigma, 'y', true) }];
    });
    if (at.length === 0) return;
    ctx.save();
    ctx.fillStyle = runColor(s);
    ctx.globalAlpha = 0.12;
    ctx.beginPath();
    at.forEach((/** @type {{ x: number, high: number }} */ p, /** @type {number} */ i) => (i === 0 ? ctx.moveTo(p.x, p.high) : ctx.lineTo(p.x, p.high)));
    for (const p of [...at].reverse()) ctx.lineTo(p.x, p.low);
    ctx.closePath();
    ctx.fill();
    ctx.restore();
  });
}
