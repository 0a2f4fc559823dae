/**
 * Why a call got an error line instead of a result. The line reads `error CODE: why`, the policy sees it in place of a
 * result, and the turn goes on; metrics count each code.
 */
export const TOOL_ERROR_CODES = ['TOOL_CALL_MALFORMED', 'TOOL_UNKNOWN', 'TOOL_FAILED', 'TOOL_TIMEOUT', 'TOOL_RESULT_TOO_LARGE'] as const;
export type ToolErrorCode = (typeof TOOL_ERROR_CODES)[number];

/** One call a turn made, as played: where it stood, what answered it. */
export interface ToolCallNote {
  /** The tool it named (absent for a block that could not be read). */
  readonly tool?: string;
  /** Index in the turn's tokens of the first environment token after it (the turn's length when nothing followed). */
  readonly position: number;
  /** Environment tokens appended after it. */
  readonly envTokens: number;
  /** Why it got an error line; absent for a result. */
  readonly code?: ToolErrorCode;
  /** A call opened and never closed before the turn ended: nothing ran, nothing was appended. */
  readonly unclosed?: true;
  /** Milliseconds the tool took (absent when none ran). */
  readonly ms?: number;
}

/** The line a policy reads for a refused or failed call. */
export function toolErrorLine(code: ToolErrorCode, why: string): string {
  return `error ${code}: ${why}`;
}

/** A turn's calls as numbers: calls made (closed), well-formed calls that returned a result, and each error code's count. */
export function toolCallCounts(calls: readonly ToolCallNote[]): { calls: number; results: number; malformed: number } & Partial<Record<ToolErrorCode, number>> {
  const counts: { calls: number; results: number; malformed: number } & Partial<Record<ToolErrorCode, number>> = { calls: 0, results: 0, malformed: 0 };
  for (const call of calls) {
    if (!call.unclosed) counts.calls += 1;
    if (call.code === undefined && !call.unclosed) counts.results += 1;
    if (call.code === 'TOOL_CALL_MALFORMED') counts.malformed += 1;
    if (call.code !== undefined) counts[call.code] = (counts[call.code] ?? 0) + 1;
  }
  return counts;
}
