import { fail } from '../errors.ts';
import { deriveSeed, Rng } from '../rng.ts';
import type { Problem, Split, Task } from '../tasks/task.ts';
import { scriptedMove } from './world-moves.ts';
import { playWorldMoveText, startWorld, worldPrompt, worldToMove, type WorldMatch } from './world-match.ts';
import { SPIRAL_FORFEIT, type AnyWorld, type ScriptedPlayer } from './world.ts';

/** A scripted player whose move is the solution at a share of the positions (ours): a base that plays like it, noisily. */
export interface WorldTeacher {
  // biome-ignore lint/suspicious/noExplicitAny: the teacher plays the task's own world, whatever its state and move types.
  readonly player: ScriptedPlayer<any, any, any>;
  /** The share of positions whose solution is the teacher's move; the rest stay uniformly random. */
  readonly share: number;
}

/**
 * Seeds each split's positions. Not 11: pretraining's mixer draws an example's task from stream 11 at the same data
 * position (lab/pretrain/sft-examples.ts), and the same seed made the first random move a function of the draw that
 * chose this task: every Kuhn game of the world base's mix opened with a bet, so its second player never saw a check.
 */
const SPLIT_STREAM: Record<Split, number> = { train: 21, validation: 22, test: 23 };

/**
 * Supervised data for a base that plays a world legally and badly: problem `index` is one position of a game played
 * by uniformly random legal moves from a seeded deal (the position drawn uniformly among the game's turns), its
 * prompt the mover's prompt there, its solution a uniformly random legal move. A base trained on it knows the format
 * and the rules and nothing of strategy, which leaves self-play all of it to learn.
 *
 * With `legalLine` (ours) the prompt stops after the observation and the solution also holds the prompt's
 * `Legal moves: …` line: the same tokens, but the base is trained to write the legal moves from the observation (which
 * cells are free, which bets are open), a dense signal for the rule a move-only target teaches one sampled token at a
 * time. Without it a 700-step base chose TicTacToe cells nearly uniformly among all nine (docs/world-games.md).
 *
 * With a `teacher` (ours) the solution at a `share` of the positions is the teacher's move instead: a base whose moves
 * depend on what it sees (its card), still bad, where a uniformly random target teaches it to ignore the card. The
 * positions themselves are still reached by random play, and without a teacher the draws are unchanged.
 */
export function worldMovesTask(world: AnyWorld, seed = 0, options: { legalLine?: boolean; teacher?: WorldTeacher } = {}): Task<{ game: string; turn: number }> {
  const { teacher } = options;
  if (teacher && !(teacher.share >= 0 && teacher.share <= 1)) fail('CONFIG_INVALID', `world task ${world.id}: the teacher's share must lie in [0, 1], got ${teacher.share}`, { share: teacher.share });
  const sample = (split: Split, index: number, sampleSeed = seed): Problem<{ game: string; turn: number }> => {
    const rng = new Rng(deriveSeed(sampleSeed, SPLIT_STREAM[split], index));
    const positions: WorldMatch[] = [];
    let match = startWorld(world.id, world, deriveSeed(sampleSeed, SPLIT_STREAM[split], index, 1));
    while (worldToMove(world, match) !== undefined) {
      positions.push(match);
      const legal = world.legalMoves(match.state);
      match = playWorldMoveText(world, match, world.moveText(legal[rng.int(legal.length)])).match;
    }
    const turn = rng.int(positions.length);
    const at = positions[turn];
    const legal = world.legalMoves(at.state);
    const mover = worldToMove(world, at)!;
    const taught = teacher !== undefined && rng.bernoulli(teacher.share);
    const move = world.moveText(taught ? scriptedMove(world, teacher.player, at.state, mover, rng) : legal[rng.int(legal.length)]);
    const full = worldPrompt(world, at, mover, SPIRAL_FORFEIT);
    const cut = options.legalLine ? full.lastIndexOf('\nLegal moves: ') + 1 : full.length;
    const prompt = full.slice(0, cut);
    const solution = `${full.slice(cut)} ${move}`;
    return { id: `${world.id}-${split}-${index}`, question: prompt, instruction: '', prompt, answer: move, solution, steps: [solution], meta: { game: world.id, turn } };
  };
  return {
    name: `world:${world.id}`,
    size: () => Infinity,
    sample,
    problems: (split, count, sampleSeed) => Array.from({ length: count }, (_, i) => sample(split, i, sampleSeed)),
  };
}
