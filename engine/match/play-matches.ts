import { fail } from '../../core/errors.ts';
import { buildSchedule, scheduleHash } from '../../core/schedules/spec.ts';
import { stepEnds } from '../../core/trajectory/step-ends.ts';
import type { Trajectory } from '../../core/trajectory/trajectory.ts';
import type { Decoder } from '../../native/runtime/decoder.ts';
import { generate } from '../../native/runtime/generate.ts';
import type { Problem } from '../../core/tasks/task.ts';
import type { TextTokenizer } from '../../plugins/tokenizers/hf-tokenizer.ts';
import { wordBoundary } from '../../plugins/tokenizers/word-boundary.ts';
import type { MatchStream } from './match-events.ts';
import type { MatchSeeds } from './match-seeds.ts';
import type { PlayedMatch } from './played-match.ts';
import { plies } from './plies.ts';
import type { RlGame } from '../../core/game/rl-game.ts';
import { stepBoundaryIds } from '../../plugins/tokenizers/step-boundary.ts';

/** What playing a game's matches needs: the decoder holds one policy per protocol author, in the protocol's order. */
export interface Arena<Role extends string> {
  readonly game: RlGame<Role>;
  readonly decoder: Decoder;
  readonly tokenizer: TextTokenizer;
  readonly wordBoundary: readonly number[];
  readonly stepBoundary: readonly number[];
  readonly stopTokens: readonly number[];
  readonly sampling: { readonly temperature: number; readonly topP: number; readonly maxNewTokens: number };
}

/** An arena for a game on a decoder: the tokenizer's word and step boundaries, the model's stop tokens. */
export function arenaFor<Role extends string>(game: RlGame<Role>, decoder: Decoder, tokenizer: TextTokenizer, stopTokens: readonly number[], sampling: Arena<Role>['sampling']): Arena<Role> {
  return { game, decoder, tokenizer, wordBoundary: Array.from(wordBoundary(tokenizer).ids), stepBoundary: stepBoundaryIds(tokenizer), stopTokens, sampling };
}

/**
 * Plays `copies` matches of every problem in one generation batch (problem-major: a GRPO group is contiguous),
 * grades them and scores them by the game's reward rule. Rows past the matches (when the decoder is wider) repeat
 * the first prompt and are dropped. A `stream` hears of the matches before they start and of every decoded token.
 */
export async function playMatches<Role extends string>(
  arena: Arena<Role>,
  problems: readonly Problem[],
  copies: number,
  seeds: MatchSeeds,
  label: string,
  stream?: MatchStream,
): Promise<PlayedMatch[]> {
  const { game, decoder, tokenizer } = arena;
  if (game.protocol.family !== 'co-decoding') fail('CONFIG_INVALID', `game "${game.id}": the RL loop plays co-decoding protocols only, not "${game.protocol.name}"`);
  const protocol = game.protocol as Extract<typeof game.protocol, { family: 'co-decoding' }>;
  const jobs = problems.flatMap((problem) => Array.from({ length: copies }, (_, copy) => ({ problem, copy, matchId: `${label}/${problem.id}/${copy}` })));
  if (jobs.length > decoder.batch) fail('INPUT_INVALID', `${jobs.length} matches do not fit a decoder of ${decoder.batch} rows`);
  const prompts = jobs.map((job) => tokenizer.encode(job.problem.prompt));
  const padded = [...prompts, ...Array.from({ length: decoder.batch - prompts.length }, () => prompts[0])];
  const spec = protocol.schedule({ seed: seeds.schedule, wordBoundary: arena.wordBoundary, stepBoundary: arena.stepBoundary });
  stream?.start(jobs, seeds.generation);
  const rollouts = await generate(decoder, padded, {
    maxNewTokens: arena.sampling.maxNewTokens,
    sampling: { temperature: arena.sampling.temperature, topK: 0, topP: arena.sampling.topP },
    seed: seeds.generation,
    stopTokens: arena.stopTokens,
    schedule: buildSchedule(spec),
    partnerLogprobs: protocol.authors.length > 1,
    padToken: arena.stopTokens[0],
    ...(stream?.onStep ? { onStep: stream.onStep } : {}),
  });
  const stops = new Set(arena.stopTokens);
  const decode = (ids: number[]) => tokenizer.decode(ids.filter((id) => !stops.has(id)));
  const stepBoundary = new Set(arena.stepBoundary);
  const hash = scheduleHash(spec);

  return Promise.all(
    jobs.map(async ({ problem, matchId }, row): Promise<PlayedMatch> => {
      const rollout = rollouts[row];
      const transcript = plies(rollout.tokens, rollout.authors, protocol.authors, decode);
      const { outcome } = await game.rewards({ matchId, seed: seeds.generation, problem, transcript, finished: true });
      const text = transcript.map((ply) => ply.text).join('');
      const trajectory: Trajectory = {
        matchId,
        seed: seeds.generation,
        turn: 0,
        promptIds: rollout.prompt,
        responseIds: rollout.tokens,
        authors: rollout.authors,
        roles: protocol.authors,
        logprobs: rollout.logprobs,
        ...(rollout.partnerLogprobs ? { partnerLogprobs: rollout.partnerLogprobs } : {}),
        schedule: spec,
        scheduleHash: hash,
        stepEnds: stepEnds(rollout.tokens, stepBoundary),
        outcome,
      };
      return { problem, trajectory, transcript, text, verdict: game.grade(problem.answer, text), finish: rollout.finish, row };
    }),
  );
}
