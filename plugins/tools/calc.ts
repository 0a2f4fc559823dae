import { TOOL_TAG, type ToolCallFormat } from '../../core/tools/call-formats.ts';
import type { Tool } from '../../core/tools/tool.ts';

/** Longest expression the calculator reads (ours). */
export const CALC_MAX_INPUT = 200;

/**
 * A calculator: whole numbers with + - * and parentheses, exact (BigInt). Anything else is an error naming the
 * character, which the policy reads as a TOOL_FAILED line.
 */
export const calcTool: Tool = {
  name: 'calc',
  description: 'evaluates + - * and parentheses on whole numbers, e.g. 12*(3+4)',
  run: ({ input }) => {
    if (typeof input !== 'string') throw new Error('the input must be text');
    return evaluate(input).toString();
  },
  timeoutMs: 1000,
  maxResultChars: 200,
};

/** The value of a whole-number expression of + - * and parentheses. */
export function evaluate(expression: string): bigint {
  if (expression.length > CALC_MAX_INPUT) throw new Error(`the expression is longer than ${CALC_MAX_INPUT} characters`);
  const tokens = expression.match(/\d+|[-+*()]|\S/g) ?? [];
  let at = 0;
  const peek = () => tokens[at];
  const take = () => tokens[at++];
  const primary = (): bigint => {
    const token = take();
    if (token === undefined) throw new Error('the expression ends too soon');
    if (token === '(') {
      const value = sum();
      if (take() !== ')') throw new Error('a ( is not closed');
      return value;
    }
    if (token === '-') return -primary();
    if (/^\d+$/.test(token)) return BigInt(token);
    throw new Error(`"${token}" is not a number or one of + - * ( )`);
  };
  const product = (): bigint => {
    let value = primary();
    while (peek() === '*') {
      take();
      value *= primary();
    }
    return value;
  };
  const sum = (): bigint => {
    let value = product();
    while (peek() === '+' || peek() === '-') {
      const op = take();
      const right = product();
      value = op === '+' ? value + right : value - right;
    }
    return value;
  };
  const value = sum();
  if (at < tokens.length) throw new Error(`"${tokens[at]}" is not expected there`);
  return value;
}

/** The calc game's prompt: the tool's description in the call format, then the problem's own prompt. */
export function calcPrompt(problemPrompt: string, format: ToolCallFormat = TOOL_TAG): string {
  return `${format.describe([calcTool])}\n${problemPrompt}`;
}
