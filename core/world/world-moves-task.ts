import { deriveSeed, Rng } from '../rng.ts';
import type { Problem, Split, Task } from '../tasks/task.ts';
import { playWorldMoveText, startWorld, worldPrompt, worldToMove, type WorldMatch } from './world-match.ts';
import { SPIRAL_FORFEIT, type AnyWorld } from './world.ts';

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
 */
export function worldMovesTask(world: AnyWorld, seed = 0, options: { legalLine?: boolean } = {}): Task<{ game: string; turn: number }> {
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
    const move = world.moveText(legal[rng.int(legal.length)]);
    const full = worldPrompt(world, at, worldToMove(world, at)!, SPIRAL_FORFEIT);
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
