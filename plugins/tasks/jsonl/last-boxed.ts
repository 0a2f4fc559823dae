/**
 * The contents of the last `\boxed{...}` in a text, braces balanced; undefined when there is none. Public
 * (`import { lastBoxed } from 'ludus'`): a reward rule reads an answer or a verdict with it.
 */
export function lastBoxed(text: string): string | undefined {
  const start = text.lastIndexOf('\\boxed{');
  if (start < 0) return undefined;
  const open = start + '\\boxed{'.length;
  let depth = 1;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) return text.slice(open, i);
  }
  return undefined;
}
