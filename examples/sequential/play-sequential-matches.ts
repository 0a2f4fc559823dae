import { deriveSeed } from '../../core/rng.ts';
import { recordTurn, startTurns } from '../../core/protocols/sequential.ts';
import type { Problem } from '../../core/tasks/task.ts';
import type { EventStream } from '../../engine/match/event-stream.ts';
import { generateTurn } from './generate-turn.ts';
import { pendingPrompt, protocolOf, type RunningMatch } from './pending-prompt.ts';
import type { SequentialArena } from './sequential-arena.ts';
import type { PlayedTurn, SequentialTranscriptLine } from './sequential-transcript.ts';

interface Match<Role extends string> extends RunningMatch<Role> {
  readonly played: PlayedTurn<Role>[];
}

/**
 * Plays one match per problem, all at once: every round, the matches waiting on the same listed turn are generated
 * together in decoder-wide batches. Each turn's prompt passes through the game's view for the acting role, and every
 * broadcast through the view for a spectator.
 */
export async function playSequentialMatches<Role extends string>(
  arena: SequentialArena<Role>,
  problems: readonly Problem[],
  runSeed: number,
  events?: EventStream,
): Promise<SequentialTranscriptLine<Role>[]> {
  const { game, tokenizer } = arena;
  const protocol = protocolOf(arena);
  let matches: Match<Role>[] = problems.map((problem, index) => ({
    state: { matchId: `${game.id}/${problem.id}/${index}`, seed: deriveSeed(runSeed, index), problem, transcript: [], finished: false },
    turns: startTurns(protocol),
    played: [],
  }));
  for (const { state } of matches) events?.publish({ type: 'match-start', matchId: state.matchId, game: game.id, seed: state.seed, seats: seatNames(arena), problemId: state.problem.id });

  for (let round = 0; ; round++) {
    const waiting = matches.flatMap((match, index) => {
      const pending = pendingPrompt(arena, match);
      return pending ? [{ index, pending }] : [];
    });
    if (waiting.length === 0) break;
    const next = [...matches];
    for (const listed of new Set(waiting.map((w) => w.pending.index))) {
      const group = waiting.filter((w) => w.pending.index === listed);
      const { spec } = group[0].pending;
      for (let start = 0; start < group.length; start += arena.decoder.batch) {
        const chunk = group.slice(start, start + arena.decoder.batch);
        const seed = deriveSeed(runSeed, round, listed, start);
        const promptIds = chunk.map((w) => tokenizer.encode(w.pending.prompt));
        const rollouts = await generateTurn(arena, spec.role, promptIds, spec.maxTokens, seed);
        for (const [row, { index }] of chunk.entries()) {
          const tokens = rollouts[row].tokens.filter((token) => !arena.stopTokens.includes(token));
          const turn: PlayedTurn<Role> = {
            turn: matches[index].played.length,
            role: spec.role,
            promptIds: promptIds[row],
            seed,
            row,
            width: arena.decoder.batch,
            tokens,
            text: tokenizer.decode(tokens),
            finish: rollouts[row].finish,
          };
          next[index] = played(arena, matches[index], turn, events);
        }
      }
    }
    matches = next;
  }
  return Promise.all(matches.map((match) => finish(arena, match, events)));
}

function played<Role extends string>(arena: SequentialArena<Role>, match: Match<Role>, turn: PlayedTurn<Role>, events?: EventStream): Match<Role> {
  const record = { role: turn.role, tokens: turn.tokens, text: turn.text };
  const turns = recordTurn(protocolOf(arena), match.turns, record);
  const state = { ...match.state, transcript: turns.played };
  const seen = arena.game.view(state, null).transcript[turn.turn];
  const matchId = state.matchId;
  events?.publish({ type: 'tokens', matchId, turn: turn.turn, position: 0, tokens: seen.tokens, authors: seen.tokens.map(() => turn.role), text: seen.text });
  events?.publish({ type: 'turn-end', matchId, turn: turn.turn, role: turn.role, tokenCount: turn.tokens.length, finish: turn.finish });
  return { state, turns, played: [...match.played, turn] };
}

async function finish<Role extends string>(arena: SequentialArena<Role>, match: Match<Role>, events?: EventStream): Promise<SequentialTranscriptLine<Role>> {
  const state = { ...match.state, finished: true };
  const { outcome } = await arena.game.rewards(state);
  for (const role of arena.game.roles) events?.publish({ type: 'reward', matchId: state.matchId, role, outcome: outcome[role] });
  events?.publish({ type: 'match-end', matchId: state.matchId, outcome });
  return { game: arena.game.id, matchId: state.matchId, seed: state.seed, problem: state.problem, sampling: arena.sampling, turns: match.played, outcome };
}

function seatNames<Role extends string>(arena: SequentialArena<Role>): Record<string, string> {
  return Object.fromEntries(arena.game.roles.map((role) => [role, arena.decoder.policies[arena.seats[role]].name]));
}
