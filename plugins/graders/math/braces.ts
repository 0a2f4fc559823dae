import type { StepBudget } from './budget.ts';

/**
 * Index of the `}` closing the `{` at `open`, or -1 when unbalanced. Escaped `\{` and `\}` are literal, not groups.
 * Each character scanned is charged to `budget`, so a megabyte of unclosed braces costs steps, not a hang.
 */
export function closingBrace(text: string, open: number, budget?: StepBudget): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    budget?.tick();
    const c = text[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '{') depth++;
    else if (c === '}') {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}
