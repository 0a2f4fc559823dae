// The ludus match viewer: plain ES modules, no build step. It reads the hub's snapshot and numbered events from /ws
// and draws runs, live matches (tokens coloured by author), finished matches found by filter and search, each at its
// own URL (#run/match), the curves (headline first; several runs overlaid) and a tournament's ratings and payoffs.
import { Curves } from './curves.js';
import { $, $input, $select, copyOf, el, entrantsOf, keyOf, matchHash, parseMatchHash } from './dom.js';
import { MatchList } from './match-list.js';
import { MatchView } from './match-view.js';
import { Tournament } from './tournament.js';

export { registerRenderer } from './match-view.js';

/** @typedef {import('../wire.ts').ClientMessage} ClientMessage */
/** @typedef {import('../wire.ts').MatchPage} MatchPage */
/** @typedef {import('../wire.ts').RunInfo} RunInfo */
/** @typedef {import('../wire.ts').ServerMessage} ServerMessage */
/** @typedef {import('../wire.ts').Snapshot} Snapshot */
/** @typedef {import('../wire.ts').WireEvent} WireEvent */
/** @typedef {import('../../core/tournament/payoff.ts').PayoffTable} PayoffTable */
/** @typedef {import('../../core/events.ts').LeaderboardRow} LeaderboardRow */
/** @typedef {import('../../core/events.ts').RunSummary} RunSummary */
/** @typedef {import('../wire.ts').RatingHistory} RatingHistory */
/** @typedef {import('./match-view.js').ViewSummary} ViewSummary */
/** @typedef {import('./curves.js').Point} Point */
/**
 * A match in flight: what the snapshot or its start said, its text so far and its events since.
 * @typedef {{ summary: ViewSummary, spans: readonly { turn: number, author: string, text: string }[], events: WireEvent[], tokens: number }} Live
 */

const model = {
  /** @type {Map<string, RunInfo>} */ runs: new Map(),
  /** @type {Map<string, Live>} */ live: new Map(),
  /** @type {Map<string, Point[]>} */ metrics: new Map(),
  /** @type {Map<string, PayoffTable>} */ payoffs: new Map(),
  /** @type {Map<string, RatingHistory & { points: RatingHistory['points'][number][] }>} by run and entrant */ ratings: new Map(),
  /** @type {Map<string, readonly LeaderboardRow[]>} */ leaderboards: new Map(),
  /** @type {Map<string, RunSummary>} */ summaries: new Map(),
  seq: -1,
};
const ui = {
  /** @type {{ run: string, matchId: string } | null} */ selected: null,
  follow: true,
  /** @type {string | null} */ run: null,
  /** @type {Set<string>} */ overlay: new Set(),
  /** @type {MatchView | null} */ view: null,
  /** @type {WebSocket | null} */ socket: null,
  listsDirty: false,
  /** @type {number[]} */ turnMarks: [],
  snapshotSeen: false,
};
/** @type {Map<number, (page: MatchPage) => void>} */
const pending = new Map();
let nextQuery = 1;

/** @param {string} run */
const metricsOf = (run) => model.metrics.get(run) ?? [];
const curves = new Curves($('charts'), metricsOf);
const list = new MatchList({ request, open: (run, matchId) => select(run, matchId, true) });
const tournament = new Tournament({ between: (row, column) => list.between(row, column) });

/**
 * Sends a query and calls `onReply` with its answer (matched by the `query` number the server echoes).
 * @param {Omit<Extract<ClientMessage, { type: 'matches' }>, 'query'>} message
 * @param {(page: MatchPage) => void} onReply
 */
function request(message, onReply) {
  const query = nextQuery++;
  pending.set(query, onReply);
  const oldest = pending.keys().next();
  if (pending.size > 64 && !oldest.done) pending.delete(oldest.value);
  send({ ...message, query });
}

/**
 * @param {string} run
 * @param {string} matchId
 * @param {boolean} byUser
 */
function select(run, matchId, byUser) {
  if (byUser) ui.follow = false;
  ui.selected = { run, matchId };
  if (ui.run !== run) setRun(run);
  if (location.hash !== matchHash(run, matchId)) history.replaceState(null, '', matchHash(run, matchId));
  const live = model.live.get(keyOf(run, matchId));
  $('scrubber').hidden = true;
  if (live) {
    const view = new MatchView(live.summary);
    ui.view = view;
    view.onEnd = showGroup;
    for (const span of live.spans) view.text(span.turn, span.author, span.text);
    for (const event of live.events) view.apply(event);
  } else {
    ui.view = null;
    send({ type: 'match', run, matchId });
  }
  list.mark(ui.selected);
}

/**
 * The rest of the shown match's group (same step and problem), asked of the server.
 * @param {MatchView} view
 */
function showGroup(view) {
  const group = view.groupPrefix();
  if (!group) return;
  request({ type: 'matches', run: view.summary.run, offset: 0, limit: 64, filter: { group } }, (page) => {
    if (ui.view === view) view.showGroup(page.matches);
  });
}

/**
 * A finished match's events, with a scrubber from its first event to its last; the arrow keys go turn by turn.
 * @param {Extract<ServerMessage, { type: 'match' }>} message
 */
function showRecorded(message) {
  if (!ui.selected || ui.selected.matchId !== message.matchId || ui.selected.run !== message.run) return;
  const events = message.events;
  const start = events.find((event) => event.type === 'match-start');
  /** @type {ViewSummary} */
  const summary = { run: message.run, matchId: message.matchId, game: start?.game ?? '', seats: start?.seats ?? {}, problemId: start?.problemId, prompt: start?.prompt };
  const scrub = $input('scrub');
  // Where each turn is whole: the scrubber's stops for the arrow keys (the start, each turn's end, the last event).
  ui.turnMarks = [0, ...events.flatMap((event, i) => (event.type === 'turn-end' ? [i + 1] : [])), events.length].filter((mark, i, all) => all.indexOf(mark) === i);
  /** @param {number} count */
  const render = (count) => {
    const view = new MatchView(summary);
    ui.view = view;
    view.onEnd = showGroup;
    for (const event of events.slice(0, count)) view.apply(event);
    $('scrub-position').textContent = `${count} / ${events.length} events`;
  };
  scrub.max = String(events.length);
  scrub.value = String(events.length);
  scrub.oninput = () => render(Number(scrub.value));
  /** @type {ReturnType<typeof setInterval> | undefined} */
  let timer;
  $('play').onclick = () => {
    clearInterval(timer);
    let shown = 0;
    timer = setInterval(() => {
      shown += 1;
      scrub.value = String(shown);
      render(shown);
      if (shown >= events.length) clearInterval(timer);
    }, 25);
  };
  $('scrubber').hidden = false;
  render(events.length);
}

/**
 * ArrowLeft / ArrowRight: the previous or next turn (a recorded match: the scrubber's turn stops).
 * @param {number} direction
 */
function stepTurns(direction) {
  if (!$('scrubber').hidden) {
    const scrub = $input('scrub');
    const now = Number(scrub.value);
    const next = direction > 0 ? ui.turnMarks.find((mark) => mark > now) : ui.turnMarks.findLast((mark) => mark < now);
    if (next === undefined) return;
    scrub.value = String(next);
    scrub.dispatchEvent(new Event('input'));
    return;
  }
  const turns = [...document.querySelectorAll('#transcript .turn')];
  if (turns.length === 0) return;
  const current = turns.findIndex((turn) => turn.classList.contains('current'));
  const next = Math.min(turns.length - 1, Math.max(0, current < 0 ? (direction > 0 ? 0 : turns.length - 1) : current + direction));
  turns.forEach((turn, i) => turn.classList.toggle('current', i === next));
  turns[next].scrollIntoView({ block: 'nearest' });
}

/** @param {string | null} run */
function setRun(run) {
  ui.run = run;
  list.show(run);
  drawCharts();
  renderRuns();
  drawTournament();
  renderSummary();
}

/**
 * The current run's tournament: its leaderboard, ratings and payoff table, carried by one of its runs (the first
 * game's; a tournament of several games has one leaderboard).
 */
function drawTournament() {
  const current = model.runs.get(ui.run ?? '');
  const carriers = current?.tournament ? [...model.runs.values()].filter((run) => run.tournament === current.tournament).map((run) => run.id) : ui.run ? [ui.run] : [];
  const first = (/** @type {Map<string, any>} */ map) => carriers.map((run) => map.get(run)).find((value) => value !== undefined);
  tournament.show({ ratings: [...model.ratings.values()].filter((rating) => carriers.includes(rating.run)), leaderboard: first(model.leaderboards), payoff: first(model.payoffs) });
}

/** @param {{ value: number, se: number }} e */
const percent = (e) => `${(100 * e.value).toFixed(1)}% ± ${(100 * e.se).toFixed(1)}`;

/** The run's final figures (summary.json) above its curves, each with its standard error. */
function renderSummary() {
  const summary = model.summaries.get(ui.run ?? '');
  const box = $('summary');
  box.hidden = !summary;
  if (!summary) return box.replaceChildren();
  const parts = [];
  const c = summary.comparison;
  if (c) {
    const sign = c.difference.value >= 0 ? '+' : '';
    parts.push(
      el('span', { className: 'summary-what' }, `held-out accuracy of ${c.role} (${c.written}), ${c.problems} ${c.split} problems:`),
      el('strong', {}, `trained ${percent(c.trained)}`),
      el('span', {}, `at the start ${percent(c.start)}`),
      el('span', {}, `difference ${sign}${(100 * c.difference.value).toFixed(1)} ± ${(100 * c.difference.se).toFixed(1)} points`),
    );
  }
  const best = summary.best;
  if (best) parts.push(el('span', {}, `best ${best.split} accuracy ${percent(best.accuracy)} at step ${best.step}`));
  box.replaceChildren(...parts);
}

/** @param {Snapshot} snapshot */
function loadSnapshot(snapshot) {
  model.seq = snapshot.seq;
  model.runs = new Map(snapshot.runs.map((run) => [run.id, run]));
  model.live = new Map(snapshot.live.map((match) => [keyOf(match.run, match.matchId), { summary: match, spans: match.spans, events: [], tokens: match.tokenCount }]));
  model.metrics = new Map(Object.entries(snapshot.metrics).map(([run, points]) => [run, points.map((point) => ({ step: point.step, metrics: { ...point.metrics } }))]));
  model.ratings = new Map((snapshot.ratings ?? []).map((rating) => [keyOf(rating.run, rating.entrant), { ...rating, points: rating.points.slice() }]));
  model.payoffs = new Map(Object.entries(snapshot.payoffs ?? {}));
  model.leaderboards = new Map(Object.entries(snapshot.leaderboards ?? {}));
  model.summaries = new Map(Object.entries(snapshot.summaries ?? {}));
  drawTournament();
  renderSummary();
  for (const run of ui.overlay) if (!model.runs.has(run)) ui.overlay.delete(run);
  const wanted = parseMatchHash(location.hash);
  if (!ui.snapshotSeen && wanted && model.runs.has(wanted.run)) {
    ui.snapshotSeen = true;
    setRun(wanted.run);
    select(wanted.run, wanted.matchId, true);
  } else {
    ui.snapshotSeen = true;
    if (!ui.run || !model.runs.has(ui.run)) setRun(snapshot.runs[0]?.id ?? null);
    else {
      list.query();
      drawCharts();
    }
    if (ui.selected && model.live.has(keyOf(ui.selected.run, ui.selected.matchId))) select(ui.selected.run, ui.selected.matchId, false);
    else if (ui.follow) followLive();
  }
  renderLists();
}

/**
 * @param {string} run
 * @param {number} step
 * @param {Readonly<Record<string, number>>} metrics
 */
function addPoint(run, step, metrics) {
  const points = model.metrics.get(run) ?? [];
  const same = points.find((point) => point.step === step);
  if (same) Object.assign(same.metrics, metrics);
  else points.push({ step, metrics: { ...metrics } });
  model.metrics.set(run, points);
  if (shownRuns().includes(run)) drawCharts();
}

/** @param {WireEvent} event */
function apply(event) {
  if (event.seq <= model.seq) return;
  model.seq = event.seq;
  const key = 'matchId' in event ? keyOf(event.run, event.matchId) : null;
  const shown = ui.selected && key === keyOf(ui.selected.run, ui.selected.matchId) && ui.view && $('scrubber').hidden;
  switch (event.type) {
    case 'run-status': {
      const run = model.runs.get(event.run);
      if (run) model.runs.set(event.run, { ...run, status: event.status });
      break;
    }
    case 'train-step':
      addPoint(event.run, event.step, event.metrics);
      break;
    case 'validation':
      addPoint(event.run, event.step, { [`validation/${event.role}/accuracy`]: event.accuracy, [`validation/${event.role}/answer_present`]: event.answerPresent });
      break;
    case 'rating-change': {
      const key = keyOf(event.run, event.entrant);
      const rating = model.ratings.get(key) ?? { run: event.run, entrant: event.entrant, system: event.system, points: [{ round: event.round - 1, rating: event.before, ...event.skill.before }] };
      rating.points.push({ round: event.round, rating: event.after, ...event.skill.after });
      model.ratings.set(key, rating);
      drawTournament();
      break;
    }
    case 'payoff-table':
      model.payoffs.set(event.run, event.table);
      drawTournament();
      break;
    case 'standings':
      model.leaderboards.set(event.run, event.rows);
      drawTournament();
      break;
    case 'run-summary':
      model.summaries.set(event.run, event.summary);
      renderSummary();
      break;
    case 'match-start':
      model.live.set(keyOf(event.run, event.matchId), { summary: { run: event.run, matchId: event.matchId, game: event.game, seats: event.seats, problemId: event.problemId, prompt: event.prompt }, spans: [], events: [event], tokens: 0 });
      if (ui.follow && (!ui.selected || !model.live.has(keyOf(ui.selected.run, ui.selected.matchId)))) select(event.run, event.matchId, false);
      break;
    default: {
      const live = key && model.live.get(key);
      if (!live) {
        // A finished match's later events (the advantages of its step) go to its view when it is shown.
        if (shown) ui.view?.apply(event);
        break;
      }
      live.events.push(event);
      if (event.type === 'tokens') live.tokens += event.tokens.length;
      if (shown) ui.view?.apply(event);
      if (event.type === 'match-end' && key) {
        model.live.delete(key);
        list.changed(event.run);
      }
    }
  }
  ui.listsDirty = true;
}

function followLive() {
  const first = model.live.values().next().value;
  if (first) select(first.summary.run, first.summary.matchId, false);
}

/** The runs whose curves are drawn: the ticked ones when two or more are, else the current one. */
function shownRuns() {
  const overlaid = [...model.runs.keys()].filter((run) => ui.overlay.has(run));
  return overlaid.length >= 2 ? overlaid : ui.run ? [ui.run] : [];
}

function drawCharts() {
  const runs = shownRuns().filter((run) => model.metrics.has(run));
  if (runs.length === 0) {
    curves.draw({ runs: [], headline: [], axis: 'step', smooth: 0, log: false });
    return;
  }
  const headline = [...new Set(runs.flatMap((run) => model.runs.get(run)?.headline ?? []))];
  curves.draw({ runs, headline: headline.length > 0 ? headline : undefined, axis: $select('axis').value, smooth: Number($input('smooth').value), log: $input('log').checked });
}

/** The smoothing slider's value, in words beside it. */
function showSmoothing() {
  const weight = Number($input('smooth').value);
  $('smooth-value').textContent = weight === 0 ? 'off' : weight.toFixed(2);
}

/** The header: what is being watched, in words (the current run, its game and progress, matches in flight). */
function renderHeader() {
  const run = model.runs.get(ui.run ?? '');
  const points = metricsOf(ui.run ?? '');
  const step = points.length > 0 ? Math.max(...points.map((point) => point.step)) : null;
  const live = [...model.live.values()].filter((match) => match.summary.run === ui.run).length;
  $('watching').textContent = run ? [`${run.id} · ${run.game}`, step === null ? null : `step ${step}`, live > 0 ? `${live} live match${live === 1 ? '' : 'es'}` : null, run.matches !== undefined ? `${run.matches} matches recorded` : null].filter(Boolean).join(' · ') : '';
  document.body.dataset.seq = String(model.seq);
}

function renderRuns() {
  $('runs').replaceChildren(
    ...[...model.runs.values()].map((run) => {
      const item = el('li', {}, '');
      item.dataset.run = run.id;
      item.dataset.status = run.status;
      item.classList.toggle('current', run.id === ui.run);
      const overlay = el('input', { type: 'checkbox', checked: ui.overlay.has(run.id), title: 'overlay its curves with the other ticked runs' });
      overlay.dataset.overlay = run.id;
      overlay.onclick = (event) => event.stopPropagation();
      overlay.onchange = () => {
        if (overlay.checked) ui.overlay.add(run.id);
        else ui.overlay.delete(run.id);
        drawCharts();
      };
      item.append(overlay, ` ${run.id} · ${run.game} `, el('span', { className: 'status' }, run.status));
      item.onclick = () => setRun(run.id);
      return item;
    }),
  );
}

function renderLists() {
  ui.listsDirty = false;
  renderHeader();
  renderRuns();
  /** @param {Live} live */
  const liveItem = (live) => {
    const { summary } = live;
    const item = el('li', { title: summary.matchId });
    item.dataset.run = summary.run;
    item.dataset.match = summary.matchId;
    // What tells one live match from the next: its copy of the problem, who plays, how far it has got.
    const facts = [copyOf(summary.matchId), entrantsOf(summary.seats), live.tokens > 0 ? `${live.tokens} tokens` : 'starting'].filter(Boolean).join(' · ');
    item.append(el('div', { className: 'row-problem' }, `${summary.prompt ?? summary.problemId ?? summary.matchId}`.replace(/\s+/g, ' ')), el('div', { className: 'row-facts' }, facts));
    item.onclick = () => select(summary.run, summary.matchId, true);
    return item;
  };
  $('live').replaceChildren(...[...model.live.values()].map(liveItem));
  const current = model.runs.get(ui.run ?? '');
  $('control').hidden = current !== undefined && current.actions.length === 0;
  const recorded = [...model.runs.values()].filter((run) => run.status === 'recorded');
  if (ui.socket?.readyState === WebSocket.OPEN) $('connection').textContent = recorded.length > 0 && recorded.length === model.runs.size ? 'replay' : 'live';
  list.mark(ui.selected);
}

/** @param {ClientMessage} message */
function send(message) {
  if (ui.socket?.readyState === WebSocket.OPEN) ui.socket.send(JSON.stringify(message));
}

/** @param {'open' | 'closed'} state */
function setConnection(state) {
  const badge = $('connection');
  badge.dataset.state = state;
  const statuses = [...model.runs.values()].map((run) => run.status);
  const ended = statuses.length > 0 && statuses.every((status) => status === 'finished' || status === 'stopped');
  badge.textContent = state === 'open' ? 'live' : ended ? `closed: the run ${statuses.includes('stopped') ? 'stopped' : 'finished'}` : state;
}

function connect() {
  const socket = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`);
  ui.socket = socket;
  socket.onopen = () => setConnection('open');
  socket.onclose = () => {
    setConnection('closed');
    setTimeout(connect, 1000);
  };
  socket.onmessage = (message) => {
    /** @type {ServerMessage} */
    const data = JSON.parse(message.data);
    switch (data.type) {
      case 'snapshot':
        return loadSnapshot(data);
      case 'events':
        for (const event of data.events) apply(event);
        return;
      case 'match':
        return showRecorded(data);
      case 'matches': {
        if (data.query === undefined) return;
        const onReply = pending.get(data.query);
        pending.delete(data.query);
        return onReply?.(data);
      }
      case 'control-ok':
        $('control-status').textContent = `${data.action}: done`;
        return;
      case 'error':
        $('control-status').textContent = `${data.code}: ${data.message}`;
        return;
    }
  };
}

for (const button of document.querySelectorAll('#control button')) {
  if (!(button instanceof HTMLButtonElement)) continue;
  button.onclick = () => {
    const run = ui.run ?? [...model.runs.keys()][0];
    const action = button.dataset.action;
    if (run === undefined || (action !== 'pause' && action !== 'resume' && action !== 'start-match')) return;
    send({ type: 'control', run, action, token: $input('token').value });
  };
}

$input('smooth').oninput = () => {
  showSmoothing();
  drawCharts();
};
$input('log').onchange = drawCharts;
$('axis').onchange = drawCharts;
window.addEventListener('hashchange', () => {
  const wanted = parseMatchHash(location.hash);
  if (wanted && (wanted.run !== ui.selected?.run || wanted.matchId !== ui.selected?.matchId) && model.runs.has(wanted.run)) select(wanted.run, wanted.matchId, true);
});
document.addEventListener('keydown', (event) => {
  const typing = (event.target instanceof HTMLInputElement && event.target.type !== 'range' && event.target.type !== 'checkbox') || event.target instanceof HTMLSelectElement;
  if (typing || event.altKey || event.ctrlKey || event.metaKey) return;
  if (event.key === 'ArrowRight' || event.key === 'ArrowLeft') {
    event.preventDefault();
    stepTurns(event.key === 'ArrowRight' ? 1 : -1);
  }
});

setInterval(() => {
  if (ui.listsDirty) renderLists();
}, 200);

connect();
