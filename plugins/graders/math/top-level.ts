const OPENERS = new Set(['(', '[', '{', '\\{']);
const CLOSERS = new Set([')', ']', '}', '\\}']);
const COMMAND = /\\(?:[a-zA-Z]+|.)/y;

/**
 * Calls `visit(at, token, depth)` for the characters and `\commands` of `text` with their bracket depth (all bracket
 * kinds count alike, so `[0, 1)` nests; a bracket counts itself). A plain loop: this runs over every answer at
 * every level of its structure, so it allocates nothing per character.
 */
function scan(text: string, visit: (at: number, token: string, depth: number) => boolean | void): void {
  let depth = 0;
  for (let at = 0; at < text.length; ) {
    let token = text[at];
    if (token === '\\') {
      COMMAND.lastIndex = at;
      token = COMMAND.exec(text)?.[0] ?? token;
    }
    if (OPENERS.has(token)) depth++;
    if (visit(at, token, depth) === false) return;
    if (CLOSERS.has(token)) depth--;
    at += token.length;
  }
}

export interface TopLevelParts {
  parts: string[];
  /** The separator found between parts[i] and parts[i + 1]. */
  separators: string[];
}

/** `text` cut at every separator of `separators` (characters or `\commands`) outside all brackets, parts trimmed. */
export function splitTopLevelAny(text: string, separators: ReadonlySet<string>): TopLevelParts {
  // Most parts hold none of the separators: the engine's own search says so without a scan.
  if (![...separators].some((separator) => text.includes(separator))) return { parts: [text.trim()], separators: [] };
  const parts: string[] = [];
  const found: string[] = [];
  let start = 0;
  scan(text, (at, token, depth) => {
    if (depth === 0 && separators.has(token)) {
      parts.push(text.slice(start, at).trim());
      found.push(token);
      start = at + token.length;
    }
  });
  parts.push(text.slice(start).trim());
  return { parts, separators: found };
}

/** `text` cut at each `separator` (a character or a `\command`) outside all brackets, parts trimmed. */
export function splitTopLevel(text: string, separator: string): string[] {
  return splitTopLevelAny(text, new Set([separator])).parts;
}

export interface Enclosed {
  open: '(' | '[' | '\\{' | '{';
  close: ')' | ']' | '\\}' | '}';
  inner: string;
}

/** When one bracket pair wraps all of `text` (`(1, 2)`, `[0, 1)`, `\{1, 2\}`, `{1, 2}`), its brackets and content. */
export function enclosingBrackets(text: string): Enclosed | undefined {
  const open = text.startsWith('\\{') ? '\\{' : text[0] === '(' || text[0] === '[' || text[0] === '{' ? text[0] : undefined;
  const close = text.endsWith('\\}') ? '\\}' : text.endsWith(')') || text.endsWith(']') || text.endsWith('}') ? text[text.length - 1] : undefined;
  if (open === undefined || close === undefined) return undefined;
  const braces = open === '{' || open === '\\{';
  if (braces ? close !== (open === '{' ? '}' : '\\}') : close === '}' || close === '\\}') return undefined;
  const closeAt = text.length - close.length;
  if (closeAt < open.length) return undefined;
  let wraps = true;
  scan(text, (at, token, depth) => {
    if (depth === 1 && CLOSERS.has(token) && at !== closeAt) wraps = false;
    return wraps;
  });
  if (!wraps) return undefined;
  return { open: open as Enclosed['open'], close: close as Enclosed['close'], inner: text.slice(open.length, closeAt) };
}
