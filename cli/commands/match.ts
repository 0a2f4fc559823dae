import type { Command } from 'commander';
import { parseConfig } from '../../core/parse-config.ts';
import { RL_GAME_NAMES } from '../../games/registry.ts';
import { composePlugins } from '../composition/compose.ts';
import { openMatchSession, type MatchSession } from '../../engine/match/match-session.ts';
import type { PlayedMatch } from '../../engine/match/played-match.ts';
import { TrainConfigSchema } from '../../engine/trainer/train-config.ts';
import { trainedTask } from '../../plugins/policies/default-model.ts';
import { forceThreadsOption, threadsOption } from '../options.ts';
import { watchOptions, watchRun, type WatchOptions } from '../watch.ts';

interface MatchOptions extends WatchOptions {
  model: string;
  problem: number;
  seed: number;
  maxNewTokens?: number;
  temperature?: number;
  pace: number;
  json?: boolean;
  threads: number;
}

export function register(program: Command): void {
  const command = program
    .command('match')
    .description(`one match of a registered game (${RL_GAME_NAMES.join(' | ')}), every role played by the base model, streamed to the viewer token by token`)
    .argument('<game>', RL_GAME_NAMES.join(' | '))
    .option('--model <dir>', "model directory, or 'default' (the shipped base)", 'default')
    .option('--problem <n>', 'index of the test problem', (v) => Number(v), 0)
    .option('--seed <n>', 'seed: the same seed and problem replay the same match', (v) => Number(v), 0)
    .option('--max-new-tokens <n>', 'response length cap', (v) => Number(v))
    .option('--temperature <t>', 'sampling temperature', (v) => Number(v))
    .option('--pace <ms>', 'wait this long after each token, to watch at reading speed (with the viewer)', (v) => Number(v), 30)
    .option('--json', 'print the finished match as one JSON line')
    .addOption(threadsOption(0))
    .addOption(forceThreadsOption());
  watchOptions(command, 'the match').action(async (game: string, opts: MatchOptions) => {
    const config = parseConfig(
      TrainConfigSchema,
      {
        game,
        model: opts.model,
        ...(trainedTask(opts.model) !== undefined ? { task: trainedTask(opts.model) } : {}),
        seed: opts.seed,
        ...(opts.maxNewTokens !== undefined ? { maxNewTokens: opts.maxNewTokens } : {}),
        ...(opts.temperature !== undefined ? { temperature: opts.temperature } : {}),
      },
      'match options',
    );
    const rlGame = (await composePlugins()).games.create(game, config);
    let next = opts.problem;
    const print = (match: PlayedMatch) => process.stdout.write(opts.json ? `${JSON.stringify(matchLine(match))}\n` : readable(match));
    let session: MatchSession | undefined;
    const watched = opts.watch
      ? await watchRun(opts, {
          id: 'match',
          game: rlGame.id,
          view: rlGame.view,
          control: {
            startMatch: () => {
              if (!session) throw new Error('the first match has not started yet');
              void session.play(++next).then(print, (error: unknown) => process.stderr.write(`ludus: ${String(error)}\n`));
            },
          },
        })
      : undefined;
    session = await openMatchSession({ game: rlGame, config, events: watched?.events, paceMs: watched ? opts.pace : 0, threads: opts.threads });
    print(await session.play(next));
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

function matchLine(match: PlayedMatch) {
  return {
    matchId: match.trajectory.matchId,
    problemId: match.problem.id,
    prompt: match.problem.prompt,
    plies: match.transcript.map((ply) => ({ role: ply.role, text: ply.text })),
    text: match.text,
    answer: match.problem.answer,
    answer_present: match.verdict.answer_present,
    correct: match.verdict.correct,
    outcome: match.trajectory.outcome,
    finish: match.finish,
  };
}

/** The transcript with each ply marked by its author: ⟨senior⟩…⟨junior⟩…. */
function readable(match: PlayedMatch): string {
  const plies = match.transcript.map((ply) => `⟨${ply.role}⟩${ply.text}`).join('');
  const verdict = `${match.verdict.correct ? 'correct' : 'wrong'} (gold ${match.problem.answer}); rewards ${JSON.stringify(match.trajectory.outcome)}`;
  return `${match.trajectory.matchId}\n${match.problem.prompt}${plies}\n-- ${verdict}\n`;
}
