import { TOOL_ERROR_CODES, toolCallCounts } from '../../core/tools/tool-calls.ts';
import type { PlayedTurn } from '../match/played-match.ts';

/**
 * How a role used its tools over some matches (each entry: the role's turns of one match), per match: calls made
 * (`tool_calls`), the share of matches with at least one (`tool_call_rate`), calls answered with a result
 * (`tool_results`), malformed calls, unclosed ones included (`tool_malformed`), environment tokens (`env_tokens`) and
 * each error code (`tool_timeout`, …). Empty when no turn could call a tool.
 */
export function toolMetrics(matches: readonly (readonly PlayedTurn[])[]): Record<string, number> {
  if (!matches.some((turns) => turns.some((turn) => turn.toolCalls !== undefined))) return {};
  const counts = matches.map((turns) => {
    const calls = turns.flatMap((turn) => turn.toolCalls ?? []);
    return { ...toolCallCounts(calls), env: calls.reduce((sum, call) => sum + call.envTokens, 0) };
  });
  const mean = (of: (c: (typeof counts)[number]) => number) => (counts.length === 0 ? 0 : counts.reduce((sum, c) => sum + of(c), 0) / counts.length);
  return {
    tool_calls: mean((c) => c.calls),
    tool_call_rate: mean((c) => (c.calls > 0 ? 1 : 0)),
    tool_results: mean((c) => c.results),
    tool_malformed: mean((c) => c.malformed),
    env_tokens: mean((c) => c.env),
    ...Object.fromEntries(TOOL_ERROR_CODES.filter((code) => code !== 'TOOL_CALL_MALFORMED').map((code) => [code.toLowerCase(), mean((c) => c[code] ?? 0)])),
  };
}
