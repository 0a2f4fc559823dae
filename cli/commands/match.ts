import type { Command } from 'commander';
import { openMatchSession, type MatchSession } from '../../engine/match/match-session.ts';
import type { PlayedMatch } from '../../engine/match/played-match.ts';
import { forceThreadsOption, threadsOption } from '../options.ts';
import { pluginOption, resolveRun, type RunOptions } from '../run-config.ts';
import { watchOptions, watchRun, type WatchOptions } from '../watch.ts';

interface MatchOptions extends WatchOptions, RunOptions {
  model: string;
  problem: number;
  seed: number;
  maxNewTokens?: number;
  temperature?: number;
  pace: number;
  waitForViewer?: boolean;
  json?: boolean;
  threads: number;
}

export function register(program: Command): void {
  const command = program
    .command('match')
    .description('one match of any game in the catalog, every policy played frozen from its model, seated as the game\'s first step, streamed to the viewer token by token')
    .argument('<game>', 'a game id (see `ludus games`)')
    .option(...pluginOption)
    .option('--config <file>', 'JSON training config: its task, policies (their models) and knobs apply')
    .option('--model <dir>', "model directory every policy plays from, or 'default' (the shipped base)", 'default')
    .option('--problem <n>', 'index of the test problem', (v) => Number(v), 0)
    .option('--seed <n>', 'seed: the same seed and problem replay the same match', (v) => Number(v), 0)
    .option('--max-new-tokens <n>', 'response length cap of a co-decoded turn', (v) => Number(v))
    .option('--temperature <t>', 'sampling temperature', (v) => Number(v))
    .option('--pace <ms>', 'wait this long after each token, to watch at reading speed (with the viewer)', (v) => Number(v), 30)
    .option('--wait-for-viewer', 'with the viewer: start the first match once a page has connected, so it is seen from its first token')
    .option('--json', 'print the finished match as one JSON line')
    .addOption(threadsOption(0))
    .addOption(forceThreadsOption());
  watchOptions(command, 'the match').action(async (gameName: string, opts: MatchOptions) => {
    const { config, game } = await resolveRun(gameName, opts, {
      ...(opts.maxNewTokens !== undefined ? { maxNewTokens: opts.maxNewTokens } : {}),
      ...(opts.temperature !== undefined ? { temperature: opts.temperature } : {}),
    });
    let next = opts.problem;
    const print = (match: PlayedMatch, from: MatchSession) => process.stdout.write(opts.json ? `${JSON.stringify(matchLine(match, from))}\n` : readable(match, from));
    let session: MatchSession | undefined;
    const watched = opts.watch
      ? await watchRun(opts, {
          id: 'match',
          game: game.id,
          view: game.view,
          headline: game.headline,
          control: {
            startMatch: () => {
              const current = session;
              if (!current) throw new Error('the first match has not started yet');
              void current.play(++next).then((match) => print(match, current), (error: unknown) => process.stderr.write(`ludus: ${String(error)}\n`));
            },
          },
        })
      : undefined;
    session = await openMatchSession({
      game,
      task: config.task,
      model: config.model,
      policies: Object.fromEntries(Object.entries(config.policies).flatMap(([name, policy]) => (policy.init ? [[name, policy.init]] : []))),
      seed: config.seed,
      sampling: { temperature: config.temperature, topP: config.topP, maxNewTokens: config.maxNewTokens },
      events: watched?.events,
      paceMs: watched ? opts.pace : 0,
      threads: opts.threads,
    });
    if (watched && opts.waitForViewer) {
      process.stderr.write(`waiting for a viewer at ${watched.server.url} before the first match\n`);
      while (watched.server.hub.stats.clients === 0) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    print(await session.play(next), session);
    if (!watched) {
      await session.release();
      return;
    }
    process.stderr.write('the match is over; the viewer keeps serving it (start another with the control token), Ctrl-C to stop\n');
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    watched.server.hub.setStatus('match', 'finished');
    await session.release();
    await watched.server.close();
  });
}

function matchLine(match: PlayedMatch, session: MatchSession) {
  return {
    matchId: match.matchId,
    problemId: match.problem.id,
    prompt: match.problem.prompt,
    seats: match.seats,
    turns: match.turns.map((turn) => ({ turn: turn.turn, role: turn.role, text: turn.text, plies: plies(turn, session), finish: turn.finish })),
    answer: match.problem.answer,
    outcome: match.rewards.outcome,
    verdicts: match.rewards.verdicts ?? [],
  };
}

/** A turn as runs of one author each, with their text (for reading: a character split across a handoff shows as �). */
function plies(turn: PlayedMatch['turns'][number], session: MatchSession): { role: string; text: string }[] {
  if (turn.authorRoles.length === 1) return [{ role: turn.role, text: turn.text }];
  const runs: { role: string; tokens: number[] }[] = [];
  turn.authorIds.forEach((author, t) => {
    const role = turn.authorRoles[author];
    if (runs.length > 0 && runs[runs.length - 1].role === role) runs[runs.length - 1].tokens.push(turn.tokens[t]);
    else runs.push({ role, tokens: [turn.tokens[t]] });
  });
  const text = (ids: number[]) => session.decode(ids.filter((id) => isShown(turn, id)));
  return runs.map((run) => ({ role: run.role, text: text(run.tokens) }));
}

/** Stop tokens read as nothing: a turn that ended on one has it as its last token, and its text does not show it. */
function isShown(turn: PlayedMatch['turns'][number], id: number): boolean {
  return !(turn.finish === 'stop' && id === turn.tokens[turn.tokens.length - 1]);
}

/** The transcript, turn by turn, each ply marked by its author: ⟨senior⟩…⟨junior⟩…; then the verdicts and rewards. */
function readable(match: PlayedMatch, session: MatchSession): string {
  const turns = match.turns.map((turn) => plies(turn, session).map((ply) => `⟨${ply.role}⟩${ply.text}`).join(''));
  const verdicts = (match.rewards.verdicts ?? []).map((v) => `${v.role} ${v.correct ? 'correct' : 'wrong'} (${v.judge}${v.step === undefined ? '' : `, step ${v.step + 1}`})`);
  return `${match.matchId}\n${match.problem.prompt}${turns.join('\n')}\n-- gold ${match.problem.answer}: ${verdicts.join('; ')}; rewards ${JSON.stringify(match.rewards.outcome)}\n`;
}
