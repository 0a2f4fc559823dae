import { fail } from '../errors.ts';
import { TOOL_TAG, type ToolCallFormat } from './call-formats.ts';
import type { Tool } from './tool.ts';

/** What a turn may do with tools: which it may call, in which format, how many times. */
export interface ToolUse {
  readonly tools: readonly Tool[];
  /** How calls are written and results read back: `<tool name="…">…</tool>` (TOOL_TAG) unless a game picks another. */
  readonly format: ToolCallFormat;
  /**
   * Calls a turn may make; a call past it ends the turn (finish `calls`). The turn's token budget counts the
   * environment's tokens as well as the policy's.
   */
  readonly maxCalls: number;
}

export const TOOL_DEFAULTS = { timeoutMs: 2000, maxResultChars: 2000, maxCalls: 4 } as const;

const TOOL_NAME = /^[a-z][a-z0-9_-]{0,63}$/;

/**
 * Tools as a turn declares them, checked once: names unique and well formed, bounds positive. `format` defaults to
 * TOOL_TAG and `maxCalls` to 4 (ours). An empty list is allowed: calls are then read and answered TOOL_UNKNOWN (a
 * no-tool control of the same game).
 */
export function toolUse(tools: readonly Tool[], options: { format?: ToolCallFormat; maxCalls?: number } = {}): ToolUse {
  const seen = new Set<string>();
  for (const tool of tools) {
    if (!TOOL_NAME.test(tool.name)) fail('CONFIG_INVALID', `tool "${tool.name}": a name is lower case letters, digits, _ and - (at most 64, a letter first)`, { tool: tool.name });
    if (seen.has(tool.name)) fail('CONFIG_INVALID', `tool "${tool.name}" is declared twice`, { tool: tool.name });
    seen.add(tool.name);
    if (typeof tool.run !== 'function') fail('CONFIG_INVALID', `tool "${tool.name}": run must be a function`, { tool: tool.name });
    for (const bound of ['timeoutMs', 'maxResultChars'] as const) {
      const value = tool[bound];
      if (value !== undefined && !(Number.isInteger(value) && value > 0)) fail('CONFIG_INVALID', `tool "${tool.name}": ${bound} must be a positive whole number, got ${value}`, { tool: tool.name, field: bound });
    }
  }
  const maxCalls = options.maxCalls ?? TOOL_DEFAULTS.maxCalls;
  if (!(Number.isInteger(maxCalls) && maxCalls >= 0)) fail('CONFIG_INVALID', `tools: maxCalls must be a whole number ≥ 0, got ${maxCalls}`, { field: 'maxCalls' });
  return { tools: [...tools], format: options.format ?? TOOL_TAG, maxCalls };
}
