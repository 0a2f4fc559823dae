import { closingBrace } from './braces.ts';

const BOX_COMMANDS = ['\\boxed', '\\fbox'];

/**
 * The content of the LAST `\boxed{…}` / `\fbox{…}` (nested braces kept) or `\boxed 5` in `text`.
 * Undefined when there is none, when it is empty, or when the last one never closes (a truncated
 * final answer is no answer, even if an earlier box was complete).
 */
export function lastBoxed(text: string): string | undefined {
  const start = lastBoxCommand(text);
  if (start === undefined) return undefined;
  let i = start.end;
  while (i < text.length && /\s/.test(text[i])) i++;
  if (text[i] === '{') {
    const close = closingBrace(text, i);
    if (close < 0) return undefined;
    return nonEmpty(text.slice(i + 1, close));
  }
  const word = /^[^\s$]+/.exec(text.slice(i, i + 10_000));
  return word ? nonEmpty(word[0].replace(/[.,;]+$/, '')) : undefined;
}

function lastBoxCommand(text: string): { end: number } | undefined {
  let best: { at: number; end: number } | undefined;
  for (const command of BOX_COMMANDS) {
    let at = text.lastIndexOf(command);
    while (at >= 0 && /[a-zA-Z]/.test(text[at + command.length] ?? '')) at = at === 0 ? -1 : text.lastIndexOf(command, at - 1);
    if (at >= 0 && (best === undefined || at > best.at)) best = { at, end: at + command.length };
  }
  return best;
}

function nonEmpty(content: string): string | undefined {
  const trimmed = content.trim();
  return trimmed.length > 0 ? trimmed : undefined;
}

/** GSM8K writes its final answer on a last line `#### 72`. */
export function gsm8kFinal(text: string): string | undefined {
  const at = text.lastIndexOf('####');
  if (at < 0) return undefined;
  return nonEmpty(text.slice(at + 4).split('\n')[0]);
}

/** Gold may be a bare answer or a worked solution: its last box, else its `####` line, else the whole text. */
export function goldAnswerOf(gold: string): string | undefined {
  return lastBoxed(gold) ?? gsm8kFinal(gold) ?? nonEmpty(gold);
}
