// A tournament as it is watched: every entrant's rating after each round, and the payoff matrix as a heat map whose
// cells open the matches behind them.
import uPlot from '/vendor/uplot.esm.js';
import { colorOf, mix } from './colors.js';
import { $, el, round } from './dom.js';

const LOW = '#fee2e2';
const HIGH = '#bbf7d0';

export class Tournament {
  /** `between(row, column)` lists the matches of a payoff cell. */
  constructor({ between }) {
    this.between = between;
    this.ratings = new Map();
    this.chart = null;
    this.entrants = '';
  }

  /** Ratings from a snapshot: each entrant's history, the first entry its rating before round 1. */
  load(ratings) {
    this.ratings = new Map(ratings.map((rating) => [rating.entrant, { system: rating.system, history: rating.history.slice() }]));
    this.drawRatings();
  }

  change(event) {
    const rating = this.ratings.get(event.entrant) ?? { system: event.system, history: [event.before] };
    rating.history.push(event.after);
    this.ratings.set(event.entrant, rating);
    this.drawRatings();
  }

  drawRatings() {
    $('tournament').hidden = this.ratings.size === 0;
    if (this.ratings.size === 0) return;
    const entrants = [...this.ratings.keys()].sort();
    const rounds = Math.max(...entrants.map((e) => this.ratings.get(e).history.length));
    const table = [Array.from({ length: rounds }, (_, i) => i), ...entrants.map((e) => Array.from({ length: rounds }, (_, i) => this.ratings.get(e).history[i] ?? null))];
    const system = this.ratings.get(entrants[0]).system;
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
        axes: [{ label: 'round', size: 36 }, { label: 'rating', size: 60 }],
        series: [{ label: 'round' }, ...entrants.map((e) => ({ label: e, stroke: colorOf(e), width: 2, points: { show: true, size: 6, fill: colorOf(e) } }))],
      },
      table,
      figure,
    );
    figure.uplot = this.chart;
  }

  /** The payoff matrix: rows play against columns; each cell the row's mean outcome, shaded low to high, and the count. */
  payoff(cells) {
    const entrants = [...new Set(cells.flatMap((cell) => [cell.row, cell.column]))].sort();
    const box = $('payoff');
    if (entrants.length === 0) return box.replaceChildren();
    const means = cells.map((cell) => cell.mean);
    const [low, high] = [Math.min(...means), Math.max(...means)];
    const at = new Map(cells.map((cell) => [`${cell.row}\u0000${cell.column}`, cell]));
    const table = el('table', { className: 'payoff' });
    const head = el('tr');
    head.append(el('th', {}, 'row vs column'), ...entrants.map((e) => el('th', {}, e)));
    table.append(head);
    for (const row of entrants) {
      const tr = el('tr');
      tr.append(el('th', {}, row));
      for (const column of entrants) {
        const cell = at.get(`${row}\u0000${column}`);
        const td = el('td');
        if (cell) {
          td.append(el('div', { className: 'payoff-mean' }, round(Number(cell.mean.toFixed(3)))), el('div', { className: 'payoff-count' }, `${cell.count} match${cell.count === 1 ? '' : 'es'}`));
          td.style.background = mix(LOW, HIGH, high > low ? (cell.mean - low) / (high - low) : 0.5);
          td.title = `${row} against ${column}: mean outcome ${cell.mean.toFixed(3)} over ${cell.count}; click for the matches`;
          td.dataset.row = row;
          td.dataset.column = column;
          td.onclick = () => this.between(row, column);
        }
        tr.append(td);
      }
      table.append(tr);
    }
    box.replaceChildren(table);
  }
}
