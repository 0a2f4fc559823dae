// The ludus match viewer: a plain ES module, no build step. It reads the hub's snapshot and numbered events from
// /ws and draws runs, live matches (tokens colored by author), finished matches with a scrubber, and curves.
import uPlot from '/vendor/uplot.esm.js';
import { renderScene } from '/world-scene.js';

// Curves come from whatever numbers a run's steps carry: `role/<role>/<name>` and `policy/<policy>/<name>` are one
// figure per name with a series per role or policy; a bare name (an older run's flat metrics) is a figure of its own.
const FIRST_CURVES = ['reward_mean', 'correct', 'response_len', 'share', 'loss', 'grad_norm', 'clip_frac'];
const PALETTE = ['#1d4ed8', '#c2410c', '#047857', '#7c3aed', '#be185d', '#0e7490', '#a16207'];
const FIXED_COLORS = { senior: 'var(--senior)', junior: 'var(--junior)' };
const LISTED_FINISHED = 5000;
/** What stands where a draft's answer was withheld from its challenger (WITHHELD in games/agon/summary.ts). */
const WITHHELD = '[withheld]';
/** Games whose turns are drawn side by side, a column each: a draft and the challenge that read it. */
const SIDE_BY_SIDE = new Set(['agon']);
const PAGE = 500;

const $ = (id) => document.getElementById(id);
const keyOf = (run, matchId) => `${run}\u0000${matchId}`;
const el = (tag, props = {}, text) => {
  const node = Object.assign(document.createElement(tag), props);
  if (text !== undefined) node.textContent = text;
  return node;
};

const model = { seq: -1, runs: new Map(), live: new Map(), finished: [], metrics: new Map(), leaderboard: [], pages: new Map() };
const ui = { selected: null, follow: true, run: null, view: null, charts: null, chartsRun: null, chartsLayout: '', figures: [], listsDirty: false, socket: null };

function colorOf(role) {
  if (FIXED_COLORS[role]) return FIXED_COLORS[role];
  let hash = 0;
  for (const char of role) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return PALETTE[hash % PALETTE.length];
}

/** One match drawn from its events: a block per turn, tokens colored by author, verdicts beside the turn. */
class MatchView {
  constructor(summary) {
    this.summary = summary;
    this.turns = new Map();
    this.pendingHandoff = false;
    this.seats = summary.seats ?? {};
    $('match-title').textContent = `${summary.matchId} · ${summary.game}${summary.problemId ? ` · ${summary.problemId}` : ''}`;
    $('transcript').replaceChildren();
    $('transcript').classList.toggle('side-by-side', SIDE_BY_SIDE.has(summary.game));
    $('outcome').replaceChildren();
    const legend = $('legend');
    legend.replaceChildren();
    for (const [role, policy] of Object.entries(summary.seats ?? {})) {
      const item = el('span', {}, `${role} (${policy})`);
      item.style.setProperty('--c', colorOf(role));
      legend.append(item);
    }
  }

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

  /** A verdict on one reasoning step, drawn right after that step's last token; on a whole turn, beside the turn. */
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
   */
  secret(index, secret) {
    const turn = this.turn(index);
    if (typeof secret.summary === 'string') {
      $('transcript').classList.add('side-by-side');
      const box = el('div', { className: 'read-summary' });
      const body = el('div', { className: 'read-summary-text' });
      secret.summary.split(WITHHELD).forEach((part, i) => {
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

  problem(event) {
    if (event.prompt === undefined && event.answer === undefined) return;
    const problem = el('div', { className: 'problem' });
    if (event.prompt !== undefined) problem.append(el('pre', { className: 'prompt' }, event.prompt));
    if (event.answer !== undefined) problem.append(el('div', { className: 'gold' }, `gold answer: ${event.answer}`));
    $('transcript').prepend(problem);
  }

  /** The rewards of every match of this match's group (same step and problem), as far as they are known. */
  group() {
    const prefix = this.summary.matchId.slice(0, this.summary.matchId.lastIndexOf('/') + 1);
    const siblings = model.finished.filter((match) => match.run === this.summary.run && match.matchId.startsWith(prefix) && match.outcome);
    if (siblings.length < 2) return;
    const rows = siblings.map((match) => `${match.matchId.slice(prefix.length)}${match.matchId === this.summary.matchId ? ' (this)' : ''}: ${Object.entries(match.outcome).map(([role, value]) => `${role} ${round(value)}`).join(', ')}`);
    const box = el('div', { className: 'group' });
    box.append(el('div', { className: 'group-title' }, `group of ${siblings.length}`), ...rows.map((row) => el('div', {}, row)));
    $('outcome').append(box);
  }

  apply(event) {
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
        $('outcome').prepend(el('div', { className: 'finished' }, `finished · ${Object.entries(event.outcome).map(([role, value]) => `${role} ${round(value)}`).join(' · ')}`));
        this.group();
        break;
    }
  }
}

function select(run, matchId, byUser) {
  if (byUser) ui.follow = false;
  ui.selected = { run, matchId };
  ui.run = run;
  const live = model.live.get(keyOf(run, matchId));
  $('scrubber').hidden = true;
  if (live) {
    ui.view = new MatchView(live.summary);
    for (const span of live.spans) ui.view.text(span.turn, span.author, span.text);
    for (const event of live.events) ui.view.apply(event);
  } else {
    ui.view = null;
    send({ type: 'match', run, matchId });
  }
  markLists();
  drawCharts();
}

/** A finished match's events, with a scrubber from its first event to its last. */
function showRecorded(message) {
  if (!ui.selected || ui.selected.matchId !== message.matchId || ui.selected.run !== message.run) return;
  const events = message.events;
  const start = events.find((event) => event.type === 'match-start');
  const summary = { run: message.run, matchId: message.matchId, game: start?.game ?? '', seats: start?.seats ?? {}, problemId: start?.problemId };
  const scrub = $('scrub');
  const render = (count) => {
    ui.view = new MatchView(summary);
    for (const event of events.slice(0, count)) ui.view.apply(event);
    $('scrub-position').textContent = `${count} / ${events.length} events`;
  };
  scrub.max = String(events.length);
  scrub.value = String(events.length);
  scrub.oninput = () => render(Number(scrub.value));
  let timer = null;
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

function loadSnapshot(snapshot) {
  model.seq = snapshot.seq;
  model.runs = new Map(snapshot.runs.map((run) => [run.id, run]));
  model.live = new Map(snapshot.live.map((match) => [keyOf(match.run, match.matchId), { summary: match, spans: match.spans, events: [] }]));
  model.finished = snapshot.finished.slice();
  model.metrics = new Map(Object.entries(snapshot.metrics).map(([run, points]) => [run, points.slice()]));
  model.leaderboard = snapshot.leaderboard;
  // A recorded run lists its newest matches; the page before them is where "earlier matches" starts.
  model.pages = new Map(
    snapshot.runs
      .filter((run) => run.matches !== undefined)
      .map((run) => [run.id, { offset: run.matches - snapshot.finished.filter((match) => match.run === run.id).length, total: run.matches }]),
  );
  ui.run ??= snapshot.runs[0]?.id ?? null;
  if (ui.selected && model.live.has(keyOf(ui.selected.run, ui.selected.matchId))) select(ui.selected.run, ui.selected.matchId, false);
  else if (ui.follow) followLive();
  ui.chartsRun = null;
  drawCharts();
  renderLists();
}

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
    case 'train-step': {
      const points = model.metrics.get(event.run) ?? [];
      points.push({ step: event.step, metrics: event.metrics });
      model.metrics.set(event.run, points);
      if (event.run === ui.chartsRun) updateCharts();
      else if (!ui.chartsRun) drawCharts();
      break;
    }
    case 'validation': {
      const points = model.metrics.get(event.run) ?? [];
      const metrics = { [`validation/${event.role}/accuracy`]: event.accuracy, [`validation/${event.role}/answer_present`]: event.answerPresent };
      const same = points.find((point) => point.step === event.step);
      if (same) Object.assign(same.metrics, metrics);
      else points.push({ step: event.step, metrics });
      model.metrics.set(event.run, points);
      if (event.run === ui.chartsRun) updateCharts();
      break;
    }
    case 'rating-change':
      model.leaderboard = [...model.leaderboard.filter((row) => row.entrant !== event.entrant), { entrant: event.entrant, rating: event.after, system: event.system }].sort((a, b) => b.rating - a.rating);
      break;
    case 'match-start':
      model.live.set(key, { summary: { run: event.run, matchId: event.matchId, game: event.game, seats: event.seats, problemId: event.problemId, tokenCount: 0 }, spans: [], events: [event] });
      if (ui.follow && (!ui.selected || !model.live.has(keyOf(ui.selected.run, ui.selected.matchId)))) select(event.run, event.matchId, false);
      break;
    default: {
      const live = key && model.live.get(key);
      if (!live) {
        // A finished match's later events (the advantages of its step) go to its view when it is shown.
        if (shown) ui.view.apply(event);
        break;
      }
      live.events.push(event);
      if (shown) ui.view.apply(event);
      if (event.type === 'match-end') {
        model.live.delete(key);
        model.finished.push({ ...live.summary, finished: true, outcome: event.outcome });
        if (model.finished.length > 4 * LISTED_FINISHED) model.finished.splice(0, model.finished.length - LISTED_FINISHED);
      }
    }
  }
  ui.listsDirty = true;
}

function followLive() {
  const first = model.live.values().next().value;
  if (first) select(first.summary.run, first.summary.matchId, false);
}

function renderLists() {
  ui.listsDirty = false;
  $('seq').textContent = `seq ${model.seq}`;
  document.body.dataset.seq = String(model.seq);
  const runs = $('runs');
  runs.replaceChildren(
    ...[...model.runs.values()].map((run) => {
      const item = el('li', {}, `${run.id} · ${run.game} `);
      item.dataset.run = run.id;
      item.dataset.status = run.status;
      item.append(el('span', { className: 'status' }, run.status));
      item.onclick = () => {
        ui.run = run.id;
        drawCharts();
      };
      return item;
    }),
  );
  const matchItem = (match) => {
    const item = el('li', { title: match.matchId }, `${match.matchId}${match.outcome ? ` · ${Object.values(match.outcome)[0]}` : ''}`);
    item.dataset.run = match.run;
    item.dataset.match = match.matchId;
    item.onclick = () => select(match.run, match.matchId, true);
    return item;
  };
  $('live').replaceChildren(...[...model.live.values()].map((live) => matchItem(live.summary)));
  $('finished').replaceChildren(...finishedGroups(model.finished.slice(-LISTED_FINISHED), matchItem));
  const current = model.runs.get(ui.run ?? '');
  $('control').hidden = current !== undefined && current.actions.length === 0;
  const recorded = [...model.runs.values()].filter((run) => run.status === 'recorded');
  $('connection').textContent = ui.socket?.readyState === WebSocket.OPEN ? (recorded.length > 0 && recorded.length === model.runs.size ? 'replay' : 'live') : $('connection').textContent;
  $('older').hidden = ![...model.pages.values()].some((page) => page.offset > 0);
  $('leaderboard-section').hidden = model.leaderboard.length === 0;
  $('leaderboard').replaceChildren(...model.leaderboard.map((row) => el('li', {}, `${row.entrant} · ${Math.round(row.rating)} (${row.system})`)));
  markLists();
}

/**
 * Finished matches grouped by step (the matchId's first part) and, within a step, ordered by problem: each group a
 * <details>, the newest steps first and open.
 */
function finishedGroups(matches, matchItem) {
  const steps = new Map();
  for (const match of matches) {
    const [step, ...rest] = match.matchId.split('/');
    const key = `${match.run} · ${step}`;
    if (!steps.has(key)) steps.set(key, []);
    steps.get(key).push({ match, problem: rest.slice(0, -1).join('/') });
  }
  const groups = [...steps.entries()].reverse();
  return groups.map(([key, items], i) => {
    const details = el('details', { open: groups.length <= 8 || i < 2 });
    details.append(el('summary', {}, `${key} (${items.length})`));
    const list = el('ul');
    list.append(...items.sort((a, b) => a.problem.localeCompare(b.problem, undefined, { numeric: true })).map(({ match }) => matchItem(match)));
    details.append(list);
    return details;
  });
}

/** Asks for the page of a recorded run's matches just before the earliest one held. */
function loadOlder() {
  for (const [run, page] of model.pages) {
    if (page.offset === 0) continue;
    const start = Math.max(0, page.offset - PAGE);
    send({ type: 'matches', run, offset: start, limit: page.offset - start });
    return;
  }
}

function addPage(page) {
  const known = new Set(model.finished.filter((match) => match.run === page.run).map((match) => match.matchId));
  const fresh = page.matches.filter((match) => !known.has(match.matchId));
  model.finished = [...fresh, ...model.finished];
  model.pages.set(page.run, { offset: page.offset, total: page.total });
  renderLists();
}

function markLists() {
  for (const item of document.querySelectorAll('.matches li')) {
    item.classList.toggle('selected', ui.selected !== null && item.dataset.match === ui.selected.matchId && item.dataset.run === ui.selected.run);
  }
}

/** The figures a run's metrics call for: one per metric name, a series per role or policy that has it. */
function curvesOf(run) {
  const figures = new Map();
  for (const point of model.metrics.get(run) ?? []) {
    for (const key of Object.keys(point.metrics)) {
      const parts = key.split('/');
      const [kind, who, name] = parts.length === 3 ? parts : ['', key, key];
      const id = parts.length === 3 ? `${kind}/${name}` : name;
      if (!figures.has(id)) figures.set(id, { id, name, kind, series: new Map() });
      figures.get(id).series.set(who, key);
    }
  }
  const rank = (figure) => {
    const first = FIRST_CURVES.indexOf(figure.name);
    return first >= 0 ? first : figure.name.startsWith('kl_to_') ? FIRST_CURVES.length : FIRST_CURVES.length + 1;
  };
  return [...figures.values()].sort((a, b) => rank(a) - rank(b) || a.id.localeCompare(b.id));
}

/** Exponential moving average (weight 0.3 on each new point), gaps left as gaps: what "smooth" draws. */
function smoothed(values) {
  let last = null;
  return values.map((value) => (value === null ? null : (last = last === null ? value : 0.3 * value + 0.7 * last)));
}

function curveData(run, figure) {
  const points = [...(model.metrics.get(run) ?? [])].sort((a, b) => a.step - b.step);
  const series = [...figure.series.values()].map((key) => points.map((point) => point.metrics[key] ?? null));
  return [points.map((point) => point.step), ...($('smooth').checked ? series.map(smoothed) : series)];
}

function drawCharts() {
  const run = ui.run ?? [...model.metrics.keys()][0] ?? null;
  const figures = run ? curvesOf(run) : [];
  const layout = figures.map((figure) => `${figure.id}:${[...figure.series.keys()].join(',')}`).join('|');
  if (run === ui.chartsRun && ui.charts && layout === ui.chartsLayout) return updateCharts();
  for (const chart of ui.charts ?? []) chart.destroy();
  const box = $('charts');
  box.replaceChildren();
  ui.chartsRun = run;
  ui.chartsLayout = layout;
  ui.charts = null;
  if (!run || !model.metrics.has(run)) return;
  ui.figures = figures;
  ui.charts = figures.map((figure) => {
    const node = el('figure');
    node.dataset.curve = figure.name;
    node.dataset.kind = figure.kind;
    box.append(node);
    const names = [...figure.series.keys()];
    node.append(el('figcaption', {}, `${run} · ${figure.name}${figure.kind ? ` by ${figure.kind}` : ''}`));
    const options = {
      width: 320,
      height: 170,
      legend: { show: names.length > 1, live: false },
      scales: { x: { time: false } },
      axes: [
        { label: 'step', size: 36 },
        { label: figure.name, size: 60, values: (_, ticks) => ticks.map((tick) => Number(tick.toPrecision(3)).toString()) },
      ],
      series: [{ label: 'step' }, ...names.map((name) => ({ label: name, stroke: colorOf(name), width: 1.5, spanGaps: true, points: { show: true, size: 4 } }))],
    };
    return new uPlot(options, curveData(run, figure), node);
  });
}

function updateCharts() {
  if (!ui.charts) return drawCharts();
  const layout = curvesOf(ui.chartsRun).map((figure) => `${figure.id}:${[...figure.series.keys()].join(',')}`).join('|');
  if (layout !== ui.chartsLayout) {
    ui.chartsRun = null;
    return drawCharts();
  }
  ui.charts.forEach((chart, i) => chart.setData(curveData(ui.chartsRun, ui.figures[i])));
}

const round = (value) => (Number.isInteger(value) ? String(value) : value.toFixed(3));

function send(message) {
  if (ui.socket?.readyState === WebSocket.OPEN) ui.socket.send(JSON.stringify(message));
}

function setConnection(state) {
  const badge = $('connection');
  badge.dataset.state = state;
  badge.textContent = state === 'open' ? 'live' : state;
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
    const data = JSON.parse(message.data);
    switch (data.type) {
      case 'snapshot':
        return loadSnapshot(data);
      case 'events':
        for (const event of data.events) apply(event);
        return;
      case 'match':
        return showRecorded(data);
      case 'matches':
        return addPage(data);
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
  button.onclick = () => {
    const run = ui.run ?? [...model.runs.keys()][0];
    send({ type: 'control', run, action: button.dataset.action, token: $('token').value });
  };
}

$('older').onclick = loadOlder;
$('smooth').onchange = () => {
  ui.chartsRun = null;
  drawCharts();
};

setInterval(() => {
  if (ui.listsDirty) renderLists();
}, 200);

connect();
