import type { StepBudget } from './budget.ts';
import { Unparseable } from './unparseable.ts';

export type Token =
  | { kind: 'number'; raw: string }
  | { kind: 'letter'; raw: string }
  /** `\name` without its backslash; `\{` and `\}` are the commands `{` and `}`. */
  | { kind: 'command'; raw: string }
  | { kind: 'symbol'; raw: string };

const NUMBER = /(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?/y;
const COMMAND = /\\(?:[a-zA-Z]+|[{}|])/y;
const SYMBOLS = new Set(['+', '-', '*', '/', '^', '_', '!', '(', ')', '[', ']', '{', '}', '|', ',', '=', "'", '<', '>']);

export function tokenize(latex: string, budget: StepBudget): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < latex.length) {
    budget.tick();
    const c = latex[i];
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    NUMBER.lastIndex = i;
    COMMAND.lastIndex = i;
    const number = NUMBER.exec(latex);
    const command = number ? null : COMMAND.exec(latex);
    if (number) {
      tokens.push({ kind: 'number', raw: number[0] });
      i += number[0].length;
    } else if (command) {
      tokens.push({ kind: 'command', raw: command[0].slice(1) });
      i += command[0].length;
    } else if (/[a-zA-Z]/.test(c)) {
      tokens.push({ kind: 'letter', raw: c });
      i++;
    } else if (SYMBOLS.has(c)) {
      tokens.push({ kind: 'symbol', raw: c });
      i++;
    } else {
      throw new Unparseable(`unexpected character ${JSON.stringify(c)}`);
    }
  }
  return tokens;
}
