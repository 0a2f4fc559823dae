import { deriveSeed, Rng } from '../rng.ts';
import type { Problem, Split, Task } from '../tasks/task.ts';

/** Split streams of the generated positions (apart from worldMovesTask's 21-23 and pretraining's 11). */
const SPLIT_STREAM: Record<Split, number> = { train: 31, validation: 32, test: 33 };

const pick = <T>(items: readonly T[], rng: Rng): T => items[rng.int(items.length)];
const between = (low: number, high: number, rng: Rng) => low + rng.int(high - low + 1);

const VERBS = ['add', 'take', 'bid', 'move', 'play', 'drop', 'raise', 'pick', 'roll', 'keep', 'offer', 'put', 'step', 'go', 'mark', 'push', 'claim', 'build'];
const WORDS = ['check', 'bet', 'call', 'fold', 'raise', 'pass', 'accept', 'reject', 'hold', 'roll', 'stand', 'hit', 'draw', 'stop', 'liar', 'yes', 'no', 'left', 'right', 'up', 'down', 'north', 'south', 'east', 'west', 'rock', 'paper', 'scissors', 'cooperate', 'defect', 'trade', 'wait', 'attack', 'defend', 'red', 'blue', 'green', 'swap', 'split', 'steal', 'buy', 'sell', 'open', 'close', 'high', 'low', 'even', 'odd', 'heads', 'tails'];
const NOUNS = ['wood', 'gold', 'stone', 'wheat', 'sheep', 'ore', 'brick', 'cards', 'chips', 'coins', 'stones', 'dice', 'tokens', 'points'];
const SYLLABLES = ['ka', 'lo', 'mi', 'ra', 'ton', 'vel', 'sa', 'dir', 'qua', 'ze', 'fi', 'nor', 'bu', 'gal', 'pe', 'xo', 'lin', 'dra', 'mu', 'ste'];
const SEATS = [['first', 'second'], ['X', 'O'], ['red', 'blue'], ['white', 'black'], ['player 1', 'player 2'], ['north', 'south'], ['A', 'B']] as const;

/** A made-up word of 2-3 syllables: moves no game of the mix has, so copying, not recall, is what answers them. */
const pseudoWord = (rng: Rng) => Array.from({ length: between(2, 3, rng) }, () => pick(SYLLABLES, rng)).join('');

/** One family of move texts: a generator of a candidate move. */
const FORMATS: readonly ((rng: Rng) => string)[] = [
  (rng) => String(between(0, 40, rng)),
  (rng) => String(between(1, 9, rng)),
  (rng) => pick(WORDS, rng),
  (rng) => pseudoWord(rng),
  (rng) => `${pick(VERBS, rng)} ${between(1, 9, rng)}`,
  (rng) => `${'ABCDEF'[rng.int(6)]} ${between(1, 6, rng)}`,
  (rng) => `${'abcdefgh'[rng.int(8)]}${between(1, 8, rng)}`,
  (rng) => `${pick(VERBS, rng)} ${between(0, 5, rng)} ${between(0, 5, rng)}`,
  (rng) => `${between(1, 4, rng)} ${pick(NOUNS, rng)}`,
  (rng) => `${pick(VERBS, rng)} ${pick(WORDS, rng)}`,
  (rng) => `${between(1, 3, rng)}x${between(1, 6, rng)}`,
  (rng) => `col ${between(1, 7, rng)}`,
];

/** A line of state: numbers, names, a little history, as game observations have them (none of it a rule to learn). */
const STATE_LINES: readonly ((rng: Rng, seats: readonly [string, string]) => string)[] = [
  (rng) => `Total: ${between(0, 30, rng)}. Target: ${between(10, 31, rng)}.`,
  (rng) => `Heaps: ${['A', 'B', 'C'].map((h) => `${h}=${between(0, 6, rng)}`).join(' ')}`,
  (rng) => `Your card: ${pick(['J', 'Q', 'K', 'A', '2', '7', '10'], rng)}.`,
  (rng) => `Your dice: ${Array.from({ length: between(1, 3, rng) }, () => between(1, 6, rng)).join(' ')}.`,
  (rng, seats) => `So far: ${seats[0]} ${pick(WORDS, rng)}s, ${seats[1]} ${pick(WORDS, rng)}s.`,
  (rng) => `You have ${between(0, 5, rng)} ${pick(NOUNS, rng)} and ${between(0, 5, rng)} ${pick(NOUNS, rng)}.`,
  (rng) => `Round ${between(1, 9, rng)} of ${between(3, 12, rng)}. Score ${between(0, 9, rng)}-${between(0, 9, rng)}.`,
  (rng) => Array.from({ length: 3 }, () => Array.from({ length: 4 }, () => pick(['.', 'X', 'O'], rng)).join(' ')).join('\n'),
  (rng) => `Pot ${between(2, 20, rng)}. Public card: ${pick(['J', 'Q', 'K'], rng)}.`,
  (rng, seats) => `Last bid by ${pick(seats, rng)}: ${between(1, 4, rng)} x ${between(1, 6, rng)}.`,
];

/** The prompt of a made-up game's position and its legal moves, as worldPrompt lays prompts out. */
function position(rng: Rng): { prompt: string; moves: string[] } {
  const seats = pick(SEATS, rng);
  const name = `${pseudoWord(rng)}${rng.bernoulli(0.5) ? ` ${pick(['poker', 'dice', 'race', 'duel', 'market', 'grid', 'heaps', 'trade'], rng)}` : ''}`;
  const lines = [`${name[0].toUpperCase()}${name.slice(1)}: ${pick(['take turns', 'play in turn', 'win the pot', 'reach the target', 'make the best deal', 'outguess the other'], rng)}. You are ${pick(seats, rng)}.`];
  for (let n = between(0, 3, rng); n > 0; n--) lines.push(pick(STATE_LINES, rng)(rng, seats));
  const families = Array.from({ length: rng.bernoulli(0.8) ? 1 : 2 }, () => pick(FORMATS, rng));
  const wanted = between(1, 10, rng);
  const moves = new Set<string>();
  for (let tries = 0; moves.size < wanted && tries < 60; tries++) moves.add(pick(families, rng)(rng));
  const listed = [...moves];
  if (listed.every((m) => /^\d+$/.test(m)) && rng.bernoulli(0.6)) listed.sort((a, b) => Number(a) - Number(b));
  return { prompt: `${lines.join('\n')}\nLegal moves: ${listed.join(', ')}\nYour move:`, moves: listed };
}

/** The cue of an echo example: the legal moves written out again. */
const ECHO_CUE = 'The legal moves again:';

/**
 * Supervised data for a general world base (ours): positions of made-up games, each a prompt laid out as a world
 * game's (an observation, `Legal moves: …`, `Your move:`) whose moves come from many formats (numbers, words,
 * made-up words, `add 2`, `B 3`, `c4`, `keep 1 2`, …), the target a legal move drawn uniformly. A base trained on it
 * answers any world game whose prompt lists its moves with one of them, which is what lets a new game be played and
 * trained from the shipped base (docs/world-games.md). With `echo` (ours), that share of the examples instead asks for
 * the whole list again (`The legal moves again:`): every token of the list a copying target, a dense signal for the
 * skill one chosen move trains a few tokens at a time.
 */
export function moveFormatsTask(seed = 0, options: { echo?: number } = {}): Task<{ moves: number }> {
  const echo = options.echo ?? 0;
  const sample = (split: Split, index: number, sampleSeed = seed): Problem<{ moves: number }> => {
    const rng = new Rng(deriveSeed(sampleSeed, SPLIT_STREAM[split], index));
    const { prompt, moves } = position(rng);
    if (echo > 0 && rng.bernoulli(echo)) {
      const asked = `${prompt.slice(0, -'Your move:'.length)}${ECHO_CUE}`;
      const listed = ` ${moves.join(', ')}`;
      return { id: `world-formats-${split}-${index}`, question: asked, instruction: '', prompt: asked, answer: listed.trim(), solution: listed, steps: [listed], meta: { moves: moves.length } };
    }
    const move = pick(moves, rng);
    return { id: `world-formats-${split}-${index}`, question: prompt, instruction: '', prompt, answer: move, solution: ` ${move}`, steps: [` ${move}`], meta: { moves: moves.length } };
  };
  return {
    name: 'world-formats',
    size: () => Infinity,
    sample,
    problems: (split, count, sampleSeed) => Array.from({ length: count }, (_, i) => sample(split, i, sampleSeed)),
  };
}
