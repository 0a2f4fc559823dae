import { fail } from '../../core/errors.ts';
import { recordTurn, startTurns } from '../../core/protocols/sequential.ts';
import { generateTurn } from './generate-turn.ts';
import { pendingPrompt, protocolOf, type RunningMatch } from './pending-prompt.ts';
import type { SequentialArena } from './sequential-arena.ts';
import type { PlayedTurn, SequentialTranscriptLine } from './sequential-transcript.ts';

/**
 * Plays a match again from its transcript line alone: each prompt is rebuilt from the replayed earlier turns through
 * the game's template and view, and each turn is sampled at its recorded seed and row in a batch of its recorded
 * width (every row holding this prompt). The result equals the line when the match replays exactly.
 */
export async function replaySequentialMatch<Role extends string>(arena: SequentialArena<Role>, line: SequentialTranscriptLine<Role>): Promise<SequentialTranscriptLine<Role>> {
  const protocol = protocolOf(arena);
  let match: RunningMatch<Role> = {
    state: { matchId: line.matchId, seed: line.seed, problem: line.problem, transcript: [], finished: false },
    turns: startTurns(protocol),
  };
  const turns: PlayedTurn<Role>[] = [];
  for (const recorded of line.turns) {
    const pending = pendingPrompt(arena, match) ?? fail('DATA_INVALID', `${line.matchId}: the line has more turns than the game plays`);
    if (recorded.width !== arena.decoder.batch) fail('INPUT_INVALID', `${line.matchId}: turn ${recorded.turn} was played ${recorded.width} rows wide; the decoder has ${arena.decoder.batch}`);
    const promptIds = arena.tokenizer.encode(pending.prompt);
    const [rollout] = (await generateTurn(arena, pending.spec.role, Array(recorded.width).fill(promptIds), pending.spec.maxTokens, recorded.seed)).slice(recorded.row);
    const tokens = rollout.tokens.filter((token) => !arena.stopTokens.includes(token));
    const turn = { turn: turns.length, role: pending.spec.role, promptIds, seed: recorded.seed, row: recorded.row, width: recorded.width, tokens, text: arena.tokenizer.decode(tokens), finish: rollout.finish };
    turns.push(turn);
    const next = recordTurn(protocol, match.turns, { role: turn.role, tokens, text: turn.text });
    match = { state: { ...match.state, transcript: next.played }, turns: next };
  }
  const { outcome } = await arena.game.rewards({ ...match.state, finished: true });
  return { ...line, turns, outcome };
}
