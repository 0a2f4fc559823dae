import type { ParsedCall } from '../../core/tools/call-formats.ts';
import { TOOL_DEFAULTS, type ToolUse } from '../../core/tools/tool-use.ts';
import { toolErrorLine, type ToolErrorCode } from '../../core/tools/tool-calls.ts';

/** What answers one call: the text the policy reads (a result or an error line), and why it is an error, if it is. */
export interface CallAnswer {
  readonly content: string;
  readonly tool?: string;
  readonly code?: ToolErrorCode;
  readonly ms?: number;
}

const TIMED_OUT = Symbol('timed out');

/**
 * Answers a parsed call: a malformed block, an unknown tool, a throw (or rejection), a call past the tool's time bound
 * and a result past its size bound each become a coded error line; nothing here throws. The tool's signal aborts at
 * the time bound, and its late result is dropped.
 */
export async function answerCall(use: ToolUse, call: ParsedCall): Promise<CallAnswer> {
  if (call.kind === 'malformed') return refused('TOOL_CALL_MALFORMED', call.why);
  const tool = use.tools.find((t) => t.name === call.name);
  if (!tool) return refused('TOOL_UNKNOWN', `no tool "${call.name}" (tools: ${use.tools.map((t) => t.name).join(', ') || 'none'})`, call.name);
  const timeoutMs = tool.timeoutMs ?? TOOL_DEFAULTS.timeoutMs;
  const maxChars = tool.maxResultChars ?? TOOL_DEFAULTS.maxResultChars;
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const result = await Promise.race([
      Promise.resolve().then(() => tool.run(call.args, { signal: controller.signal })),
      new Promise<typeof TIMED_OUT>((resolve) => {
        timer = setTimeout(() => resolve(TIMED_OUT), timeoutMs);
      }),
    ]);
    if (result === TIMED_OUT) {
      controller.abort();
      return { ...refused('TOOL_TIMEOUT', `${tool.name} took longer than ${timeoutMs} ms`, tool.name), ms: elapsed() };
    }
    const content = typeof result === 'string' ? result : (JSON.stringify(result) ?? String(result));
    if (content.length > maxChars) return { ...refused('TOOL_RESULT_TOO_LARGE', `${tool.name} returned ${content.length} characters, more than its ${maxChars}`, tool.name), ms: elapsed() };
    return { content, tool: tool.name, ms: elapsed() };
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return { ...refused('TOOL_FAILED', `${tool.name} failed: ${why.slice(0, 200)}`, tool.name), ms: elapsed() };
  } finally {
    clearTimeout(timer);
  }
}

function refused(code: ToolErrorCode, why: string, tool?: string): CallAnswer {
  return { content: toolErrorLine(code, why), code, ...(tool === undefined ? {} : { tool }) };
}
