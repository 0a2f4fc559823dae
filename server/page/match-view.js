// One match drawn from its events: a block per turn, tokens coloured by author, verdicts beside the turn or step,
// rewards and advantages. What a particular game adds (a layout, a board) comes from its renderer.
import { colorOf } from './colors.js';
import { $, el, round } from './dom.js';
import { renderScene } from './world-scene.js';

/** @typedef {import('../wire.ts').WireEvent} WireEvent */
/** @typedef {import('../../core/events.ts').VerdictEvent} VerdictEvent */
/** @typedef {import('../../core/events.ts').MatchStartEvent} MatchStartEvent */
/** @typedef {import('../wire.ts').MatchSummary} MatchSummary */
/**
 * What the view shows of a match above its turns: a live match's summary, or what a recorded match's start said.
 * @typedef {{ run: string, matchId: string, game: string, seats: Readonly<Record<string, string>>, problemId?: string, prompt?: string }} ViewSummary
 */
/**
 * A game's drawing on top of the default: `layout: 'side-by-side'` draws turns in columns; `event` sees every event.
 * @typedef {{ layout?: 'side-by-side', event?: (event: WireEvent, view: MatchView) => void }} Renderer
 */
/**
 * One turn's block and what was drawn in it.
 * @typedef {{ block: HTMLDivElement, label: HTMLDivElement, tokens: HTMLDivElement, side: HTMLDivElement, spans: HTMLSpanElement[], stepEnds: readonly number[] | null, authors?: Set<string> }} Turn
 */

/** What stands where a draft's answer was withheld from its challenger (WITHHELD in games/agon/summary.ts). */
const WITHHELD = '[withheld]';

/**
 * Per-game renderers, by game id: `layout: 'side-by-side'` draws turns in columns; `event(event, view)` is called
 * after the default drawing of every event of the match, with `view.panel()` a box above the transcript to draw a
 * board or world state in and `view.turn(i)` the block of turn i.
 */
/** @type {Map<string, Renderer>} */
const renderers = new Map([['agon', { layout: 'side-by-side' }]]);

/**
 * @param {string} game
 * @param {Renderer} renderer
 */
export function registerRenderer(game, renderer) {
  renderers.set(game, renderer);
}

/** One match drawn from its events: a block per turn, tokens colored by author, verdicts beside the turn. */
export class MatchView {
  /** @param {ViewSummary} summary */
  constructor(summary) {
    this.summary = summary;
    /** @type {Map<number, Turn>} */
    this.turns = new Map();
    this.pendingHandoff = false;
    /** @type {((view: MatchView) => void) | undefined} Called once the match has ended (the page then shows its group). */
    this.onEnd = undefined;
    this.seats = summary.seats ?? {};
    /** @type {Record<string, boolean>} The grader's verdict on each role's answer, for the title. */
    this.verdicts = {};
    this.title();
    const step = /^step-(\d+)\//.exec(summary.matchId)?.[1];
    const round_ = /^r(\d+)\//.exec(summary.matchId)?.[1];
    $('match-id').textContent = [summary.matchId, summary.game, step === undefined ? null : `step ${Number(step) + 1}`, round_ === undefined ? null : `round ${round_}`, summary.problemId ? `problem ${summary.problemId}` : null].filter(Boolean).join(' · ');
    $('transcript').replaceChildren();
    /** @type {Renderer} */
    this.renderer = renderers.get(summary.game) ?? {};
    $('transcript').classList.toggle('side-by-side', this.renderer.layout === 'side-by-side');
    $('world').replaceChildren();
    $('world').hidden = true;
    $('outcome').replaceChildren();
    const legend = $('legend');
    legend.replaceChildren();
    for (const [role, policy] of Object.entries(summary.seats ?? {})) {
      const item = el('span', {}, `${role} (${policy})`);
      item.style.setProperty('--c', colorOf(role));
      legend.append(item);
    }
  }

  /**
   * The match's title, from what it is: its problem, who plays it, and once it has ended its outcome.
   * @param {Readonly<Record<string, number>>} [outcome]
   */
  title(outcome) {
    const problem = (this.summary.prompt ?? '').split('\n').map((line) => line.trim()).find((line) => line !== '') ?? this.summary.problemId ?? this.summary.matchId;
    const shown = problem.length > 90 ? `${problem.slice(0, 90)}…` : problem;
    const who = Object.entries(this.seats).map(([role, policy]) => (policy === role ? role : `${role} ${policy}`)).join(', ');
    const result = outcome ? Object.entries(outcome).map(([role, value]) => `${role} ${round(value)}${role in this.verdicts ? (this.verdicts[role] ? ' ✓' : ' ✗') : ''}`).join(', ') : 'playing';
    $('match-title').textContent = [shown, who, result].filter(Boolean).join(' · ');
  }

  /**
   * @param {number} index
   * @returns {Turn}
   */
  turn(index) {
    let turn = this.turns.get(index);
    if (!turn) {
      const block = el('div', { className: 'turn' });
      block.dataset.turn = String(index);
      const label = el('div', { className: 'turn-label' }, `turn ${index}`);
      const tokens = el('div', { className: 'tokens' });
      const side = el('div', { className: 'side' });
      block.append(label, tokens, side);
      $('transcript').append(block);
      turn = { block, label, tokens, side, spans: [], stepEnds: null };
      this.turns.set(index, turn);
    }
    return turn;
  }

  /**
   * @param {number} turnIndex
   * @param {string} author
   * @param {string} text
   * @param {Readonly<Record<number, string>>} [specials]
   */
  text(turnIndex, author, text, specials) {
    const turn = this.turn(turnIndex);
    const names = Object.values(specials ?? {});
    // A special token (end of text, chat markers) shows as a marker drawn by CSS, so the text stays the text.
    const span = el('span', { className: `${this.pendingHandoff ? 'tok handoff' : 'tok'}${names.length > 0 && !text ? ' special' : ''}` }, text);
    if (names.length > 0 && !text) span.dataset.special = names.join(' ');
    span.dataset.author = author;
    span.style.setProperty('--c', colorOf(author));
    this.pendingHandoff = false;
    turn.tokens.append(span);
    turn.spans.push(span);
    for (const name of text ? names : []) {
      const marker = el('span', { className: 'special', title: name });
      marker.dataset.special = name;
      turn.tokens.append(marker);
    }
    turn.authors = new Set([...(turn.authors ?? []), author]);
  }

  /**
   * A verdict on one reasoning step, drawn right after that step's last token; on a whole turn, beside the turn.
   * @param {VerdictEvent} event
   */
  verdict(event) {
    const turn = this.turn(event.turn ?? [...this.turns.keys()].pop() ?? 0);
    const text = `${event.judge} on ${event.role}${event.step === undefined ? '' : ` step ${event.step + 1}`}: ${event.correct ? 'correct' : 'wrong'}${event.answerPresent ? '' : ' (no answer)'}`;
    if (event.step === undefined) {
      const verdict = el('div', { className: 'verdict' }, text);
      verdict.dataset.correct = String(event.correct);
      turn.side.append(verdict);
      return;
    }
    const badge = el('span', { className: 'step-verdict', title: text }, event.correct ? '✓' : '✗');
    badge.dataset.correct = String(event.correct);
    badge.dataset.step = String(event.step);
    badge.dataset.judge = event.judge;
    const end = turn.stepEnds?.[event.step];
    const after = end === undefined ? turn.spans.at(-1) : turn.spans[end];
    if (after) after.after(badge);
    else turn.tokens.append(badge);
  }

  /**
   * What the game's view shows a spectator beside a finished turn. A draft's: the summary its challenger read, each
   * withheld place marked, and the final answer that was withheld from the challenger (drafts go side by side with it).
   * @param {number} index
   * @param {Readonly<Record<string, unknown>>} secret
   */
  secret(index, secret) {
    const turn = this.turn(index);
    const summary = secret.summary;
    if (typeof summary === 'string') {
      $('transcript').classList.add('side-by-side');
      const box = el('div', { className: 'read-summary' });
      const body = el('div', { className: 'read-summary-text' });
      summary.split(WITHHELD).forEach((part, i) => {
        if (i > 0) body.append(el('mark', { className: 'withheld' }, WITHHELD));
        body.append(part);
      });
      box.append(el('div', { className: 'read-summary-title' }, 'summary the challenger read (final answer withheld)'), body);
      turn.block.append(box);
    }
    if ('withheld' in secret) {
      const answer = el('div', { className: 'withheld-answer' }, secret.withheld === null ? 'no final answer to withhold' : `final answer ${secret.withheld}: withheld from the challenger`);
      answer.dataset.withheld = secret.withheld === null ? '' : String(secret.withheld);
      turn.block.append(answer);
    }
  }

  /** @param {MatchStartEvent} event */
  problem(event) {
    if (event.prompt === undefined && event.answer === undefined) return;
    const problem = el('div', { className: 'problem' });
    if (event.prompt !== undefined) problem.append(el('pre', { className: 'prompt' }, event.prompt));
    if (event.answer !== undefined) problem.append(el('div', { className: 'gold' }, `gold answer: ${event.answer}`));
    $('transcript').prepend(problem);
  }

  /** The group's prefix: matches of the same step and problem share the id up to its last `/`. */
  groupPrefix() {
    return this.summary.matchId.slice(0, this.summary.matchId.lastIndexOf('/') + 1);
  }

  /**
   * The rewards of every match of this match's group (same step and problem), as the server listed them.
   * @param {readonly MatchSummary[]} siblings
   */
  showGroup(siblings) {
    const prefix = this.groupPrefix();
    const finished = siblings.flatMap((match) => (match.outcome ? [{ matchId: match.matchId, outcome: match.outcome }] : [])).sort((a, b) => a.matchId.localeCompare(b.matchId, undefined, { numeric: true }));
    $('outcome').querySelector('.group')?.remove();
    if (finished.length < 2) return;
    const rows = finished.map((match) => `${match.matchId.slice(prefix.length)}${match.matchId === this.summary.matchId ? ' (this)' : ''}: ${Object.entries(match.outcome).map(([role, value]) => `${role} ${round(value)}`).join(', ')}`);
    const box = el('div', { className: 'group' });
    box.append(el('div', { className: 'group-title' }, `group of ${finished.length}`), ...rows.map((row) => el('div', {}, row)));
    $('outcome').append(box);
  }

  /** The panel above the transcript a game's renderer draws in (a board, a world state), shown once asked for. */
  panel() {
    $('world').hidden = false;
    return $('world');
  }

  /** @param {WireEvent} event */
  apply(event) {
    this.applyDefault(event);
    this.renderer.event?.(event, this);
  }

  /** @param {WireEvent} event */
  applyDefault(event) {
    switch (event.type) {
      case 'tokens':
        if (event.authors.length > 0) this.text(event.turn, event.authors[0], event.text ?? '', event.specials);
        break;
      case 'handoff':
        this.pendingHandoff = true;
        break;
      case 'match-start':
        this.problem(event);
        break;
      case 'turn-start':
        this.turn(event.turn).label.textContent = `turn ${event.turn} · ${event.role} (${event.policy})`;
        break;
      case 'turn-end': {
        const turn = this.turn(event.turn);
        turn.stepEnds = event.stepEnds ?? null;
        const authors = [...(turn.authors ?? [])];
        const who = authors.length > 1 ? `co-written by ${authors.map((role) => `${role}${this.seats[role] ? ` (${this.seats[role]})` : ''}`).join(' and ')}` : `${event.role}${this.seats[event.role] ? ` (${this.seats[event.role]})` : ''}`;
        turn.label.textContent = `turn ${event.turn} · ${who} · ${event.tokenCount} tokens · ${event.finish}`;
        if (event.secret) this.secret(event.turn, event.secret);
        if (event.scene) turn.side.append(renderScene(event.scene, event.world));
        break;
      }
      case 'verdict':
        this.verdict(event);
        if (event.judge === 'grader' && event.step === undefined) this.verdicts[event.role] = event.correct;
        break;
      case 'reward': {
        const side = $('outcome');
        const steps = event.steps?.length ? ` · step rewards ${event.steps.map((s) => `@${s.position} ${round(s.value)}`).join(' ')}` : '';
        side.append(el('div', { className: 'reward' }, `reward ${event.role}: ${round(event.outcome)}${steps}`));
        break;
      }
      case 'advantage': {
        const advantage = el('div', { className: 'advantage' }, `advantage ${event.role} (${event.policy}): ${round(event.advantage)}${event.dropped ? ' · dropped' : ''}`);
        $('outcome').append(advantage);
        break;
      }
      case 'match-end':
        this.title(event.outcome);
        $('outcome').prepend(el('div', { className: 'finished' }, `finished · ${Object.entries(event.outcome).map(([role, value]) => `${role} ${round(value)}`).join(' · ')}`));
        this.onEnd?.(this);
        break;
    }
  }
}
