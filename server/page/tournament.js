// A tournament as it is watched: every entrant's rating after each round, and the payoff table as a heat map whose
// cells list the matches behind them.
import uPlot from '/vendor/uplot.esm.js';
import { mix, runColor } from './colors.js';
import { $, el, round } from './dom.js';

/** @typedef {import('../../core/events.ts').RatingChangeEvent} RatingChangeEvent */
/** @typedef {import('../../core/tournament/payoff.ts').PayoffTable} PayoffTable */
/** @typedef {import('../wire.ts').Snapshot['ratings']} Ratings */

const LOW = '#fee2e2';
const HIGH = '#bbf7d0';

export class Tournament {
  /**
   * `between(row, column)` lists the matches of a payoff cell.
   * @param {{ between: (row: string, column: string) => void }} callbacks
   */
  constructor({ between }) {
    this.between = between;
    /** @type {Map<string, { system: string, history: number[] }>} */
    this.ratings = new Map();
    /** @type {uPlot | null} */
    this.chart = null;
    this.entrants = '';
  }

  /**
   * Ratings from a snapshot: each entrant's history, the first entry its rating before round 1.
   * @param {Ratings} ratings
   */
  load(ratings) {
    this.ratings = new Map(ratings.map((rating) => [rating.entrant, { system: rating.system, history: rating.history.slice() }]));
    this.drawRatings();
  }

  /** @param {RatingChangeEvent} event */
  change(event) {
    const rating = this.ratings.get(event.entrant) ?? { system: event.system, history: [event.before] };
    rating.history.push(event.after);
    this.ratings.set(event.entrant, rating);
    this.drawRatings();
  }

  drawRatings() {
    $('tournament').hidden = this.ratings.size === 0;
    if (this.ratings.size === 0) return;
    const rated = [...this.ratings.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const entrants = rated.map(([entrant]) => entrant);
    const rounds = Math.max(...rated.map(([, rating]) => rating.history.length));
    /** @type {uPlot.AlignedData} */
    const table = [Array.from({ length: rounds }, (_, i) => i), ...rated.map(([, rating]) => Array.from({ length: rounds }, (_, i) => rating.history[i] ?? null))];
    const system = rated[0]?.[1].system ?? '';
    const box = $('ratings');
    if (this.chart && this.entrants === entrants.join('\u0000')) return this.chart.setData(table);
    this.chart?.destroy();
    this.entrants = entrants.join('\u0000');
    box.replaceChildren();
    const figure = el('figure');
    figure.dataset.curve = 'rating';
    figure.append(el('figcaption', {}, `rating (${system}) after each round`));
    box.append(figure);
    this.chart = new uPlot(
      {
        width: 440,
        height: 230,
        legend: { show: true, live: false },
        scales: { x: { time: false } },
        axes: [{ label: 'round', size: 36, incrs: [1, 2, 5, 10, 20, 50, 100] }, { label: 'rating', size: 60 }],
        // A colour per entrant by its place in the sorted list: entrants of one league never share one.
        series: [{ label: 'round' }, ...entrants.map((e, i) => ({ label: e, stroke: runColor(i), width: 2, points: { show: true, size: 6, fill: runColor(i) } }))],
      },
      table,
      figure,
    );
    Object.assign(figure, { uplot: this.chart });
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
