// The list of a run's finished matches, found by what they are: filters (step, role, outcome, verdict, the two
// entrants of a payoff cell) and text search are answered by the server a page at a time, newest first.
import { colorOf } from './colors.js';
import { $, $input, $select, el, entrantsOf, round } from './dom.js';

/** @typedef {import('../wire.ts').ClientMessage} ClientMessage */
/** @typedef {import('../wire.ts').MatchFilter} MatchFilter */
/** @typedef {import('../wire.ts').MatchPage} MatchPage */
/** @typedef {import('../wire.ts').MatchSummary} MatchSummary */
/** @typedef {(message: Omit<Extract<ClientMessage, { type: 'matches' }>, 'query'>, onReply: (page: MatchPage) => void) => void} Request */

const PAGE = 50;

/**
 * The option of `options` that `value` names, or undefined (an empty select, or a value the wire would refuse).
 * @template {string} T
 * @param {string} value
 * @param {readonly T[]} options
 * @returns {T | undefined}
 */
const oneOf = (value, options) => options.find((option) => option === value);

export class MatchList {
  /**
   * `request(message, onReply)` sends a `matches` query; `open(run, matchId)` shows a match.
   * @param {{ request: Request, open: (run: string, matchId: string) => void }} callbacks
   */
  constructor({ request, open }) {
    this.request = request;
    this.open = open;
    /** @type {string | null} */
    this.run = null;
    /** @type {MatchSummary[]} */
    this.rows = [];
    this.total = 0;
    this.latest = 0;
    /** @type {[string, string] | null} */
    this.seats = null;
    /** @type {Set<string>} */
    this.roles = new Set();
    /** @type {ReturnType<typeof setTimeout> | null} */
    this.timer = null;
    /** @type {{ run: string, matchId: string } | null} */
    this.selected = null;
    for (const id of ['filter-step', 'filter-role', 'filter-outcome', 'filter-verdict', 'filter-text']) $(id).addEventListener('input', () => this.query());
    $('filter-clear').onclick = () => this.clear();
    $('more').onclick = () => this.query(this.rows.length);
  }

  /**
   * The filter the controls say, without empty parts.
   * @returns {MatchFilter}
   */
  filter() {
    const step = $input('filter-step').value.trim();
    const role = $select('filter-role').value;
    const outcome = oneOf($select('filter-outcome').value, /** @type {const} */ (['positive', 'zero', 'negative']));
    const verdict = oneOf($select('filter-verdict').value, /** @type {const} */ (['correct', 'wrong', 'unjudged']));
    const text = $input('filter-text').value.trim();
    const filter = {
      ...(step !== '' && Number.isInteger(Number(step)) ? { step: Number(step) } : {}),
      ...(role ? { role } : {}),
      ...(outcome ? { outcome } : {}),
      ...(verdict ? { verdict } : {}),
      ...(text ? { text: text.slice(0, 200) } : {}),
      ...(this.seats ? { seats: this.seats } : {}),
    };
    return filter;
  }

  /** @param {string | null} run */
  show(run) {
    if (run === this.run) return;
    this.run = run;
    this.roles = new Set();
    this.query();
  }

  /**
   * Matches between two entrants (a payoff cell).
   * @param {string} row
   * @param {string} column
   */
  between(row, column) {
    this.seats = [row, column];
    $('filter-seats').textContent = `${row} against ${column}`;
    $('filter-seats').hidden = false;
    this.query();
  }

  clear() {
    for (const id of ['filter-step', 'filter-text']) $input(id).value = '';
    for (const id of ['filter-role', 'filter-outcome', 'filter-verdict']) $select(id).value = '';
    this.seats = null;
    $('filter-seats').hidden = true;
    this.query();
  }

  /** Asks for the page at `offset` (0: a fresh list); only the latest question's answer is drawn. */
  query(offset = 0) {
    if (!this.run) return;
    const asked = ++this.latest;
    const list = $('finished');
    list.dataset.asked = String(asked);
    this.request({ type: 'matches', run: this.run, offset, limit: PAGE, filter: this.filter() }, (page) => {
      if (asked !== this.latest) return;
      this.rows = offset === 0 ? page.matches.slice() : [...this.rows, ...page.matches];
      this.total = page.total;
      this.render();
      list.dataset.answered = String(asked);
    });
  }

  /**
   * A finished match of the listed run: the first page is asked again (at most once a second) so it shows.
   * @param {string} run
   */
  changed(run) {
    if (run !== this.run || this.rows.length > PAGE) return;
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.query();
    }, 1000);
  }

  render() {
    for (const match of this.rows) for (const role of Object.keys(match.seats ?? {})) this.roles.add(role);
    const roleSelect = $select('filter-role');
    const chosen = roleSelect.value;
    roleSelect.replaceChildren(el('option', { value: '' }, 'any role'), ...[...this.roles].map((role) => el('option', { value: role }, role)));
    roleSelect.value = chosen;
    $('match-count').textContent = `${this.total} match${this.total === 1 ? '' : 'es'}`;
    $('finished').replaceChildren(...this.rows.map((match) => this.item(match)));
    $('more').hidden = this.rows.length >= this.total;
    this.mark();
  }

  /** @param {MatchSummary} match */
  item(match) {
    const item = el('li', { title: match.matchId });
    item.dataset.run = match.run;
    item.dataset.match = match.matchId;
    const problem = el('div', { className: 'row-problem' }, (match.prompt ?? match.problemId ?? match.matchId).replace(/\s+/g, ' '));
    const facts = el('div', { className: 'row-facts' });
    if (match.step !== undefined) facts.append(el('span', { className: 'row-step' }, `step ${match.step}`));
    if (match.round !== undefined) facts.append(el('span', { className: 'row-step' }, `round ${match.round}`));
    for (const [role, value] of Object.entries(match.outcome ?? {})) {
      const verdict = match.verdicts?.[role];
      const chip = el('span', { className: 'row-role' }, `${role} ${round(value)}${verdict === undefined ? '' : verdict ? ' ✓' : ' ✗'}`);
      chip.style.setProperty('--c', colorOf(role));
      if (verdict !== undefined) chip.dataset.correct = String(verdict);
      facts.append(chip);
    }
    const entrants = entrantsOf(match.seats);
    if (entrants) facts.append(el('span', { className: 'row-entrants' }, entrants));
    item.append(problem, facts);
    // The answer each judged role gave, against the gold one.
    const answers = Object.entries(match.answers ?? {});
    if (answers.length > 0 || match.gold !== undefined) {
      const given = answers.map(([role, answer]) => `${answers.length > 1 ? `${role}: ` : ''}${answer === null ? 'no answer' : `answered ${answer}`}`).join(', ');
      item.append(el('div', { className: 'row-answer' }, [given || null, match.gold === undefined ? null : `gold ${match.gold}`].filter(Boolean).join(' · ')));
    }
    item.onclick = () => this.open(match.run, match.matchId);
    return item;
  }

  /** @param {{ run: string, matchId: string } | null} selected */
  mark(selected = this.selected) {
    this.selected = selected;
    for (const item of document.querySelectorAll('.matches li')) {
      if (!(item instanceof HTMLElement)) continue;
      item.classList.toggle('selected', selected != null && item.dataset.match === selected.matchId && item.dataset.run === selected.run);
    }
  }
}
