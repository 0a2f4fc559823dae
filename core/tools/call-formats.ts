import type { Tool, ToolArguments } from './tool.ts';

/** What the text of a call reads as: a call of a named tool with its arguments, or a block that cannot be read. */
export type ParsedCall = { readonly kind: 'call'; readonly name: string; readonly args: ToolArguments } | { readonly kind: 'malformed'; readonly why: string };

/**
 * How a policy writes a call and reads the result back. Decoding stops at `close`; the text up to it is parsed; what
 * the tool returned (or a coded error line) is wrapped by `observation` and appended as environment tokens.
 */
export interface ToolCallFormat {
  readonly name: string;
  /** How a call begins: text that holds one after its last `close` is an unclosed call (counted malformed). */
  readonly open: string;
  /** How a call ends: the stop string of a turn that may call. */
  readonly close: string;
  /** The call that ends `text` (a segment of the turn, ending at or just after its last `close`). */
  parse(text: string): ParsedCall;
  /** The environment's text after a call: the result or error line, wrapped. */
  observation(content: string): string;
  /** The lines a prompt shows the policy: the tools and how to call them. */
  describe(tools: readonly Tool[]): string;
}

const TAG_OPEN = /^<tool\s+name="([a-z][a-z0-9_-]*)"\s*>([\s\S]*)$/;

/**
 * ludus's default: `<tool name="calc">12*34</tool>`, the block's text passed as `{ input }`, the result read back as
 * `<result>…</result>`.
 */
export const TOOL_TAG: ToolCallFormat = {
  name: 'tool-tag',
  open: '<tool',
  close: '</tool>',
  parse(text) {
    const end = text.lastIndexOf('</tool>');
    const start = text.lastIndexOf('<tool', end - 1);
    if (end < 0 || start < 0) return { kind: 'malformed', why: 'a </tool> with no <tool name="…"> before it' };
    const opened = TAG_OPEN.exec(text.slice(start, end));
    if (!opened) return { kind: 'malformed', why: `a call opens as <tool name="NAME">, not ${JSON.stringify(text.slice(start, Math.min(end, start + 40)).split('>')[0] + '>')}` };
    return { kind: 'call', name: opened[1], args: { input: opened[2].trim() } };
  },
  observation: (content) => `<result>${content}</result>`,
  describe: (tools) =>
    [`Tools: write <tool name="NAME">input</tool> to call one; its result comes back as <result>…</result>.`, ...tools.map((tool) => `- ${tool.name}: ${tool.description}`)].join('\n'),
};

const QWEN3_CALL_OPEN = '<tool_call>';
const QWEN3_CALL_CLOSE = '</tool_call>';
const STRING_INPUT = { type: 'object', properties: { input: { type: 'string' } }, required: ['input'] } as const;

/**
 * The Qwen3 chat template's tool calls: `<tool_call>\n{"name": …, "arguments": {…}}\n</tool_call>`, the result read
 * back as the template renders a tool message (a user turn holding `<tool_response>`), then the assistant's turn
 * reopened, so the same turn goes on.
 */
export const QWEN3_TOOL_CALL: ToolCallFormat = {
  name: 'qwen3',
  open: QWEN3_CALL_OPEN,
  close: QWEN3_CALL_CLOSE,
  parse(text) {
    const end = text.lastIndexOf(QWEN3_CALL_CLOSE);
    const start = text.lastIndexOf(QWEN3_CALL_OPEN, end - 1);
    if (end < 0 || start < 0) return { kind: 'malformed', why: 'a </tool_call> with no <tool_call> before it' };
    let call: unknown;
    try {
      call = JSON.parse(text.slice(start + QWEN3_CALL_OPEN.length, end));
    } catch {
      return { kind: 'malformed', why: 'the call is not JSON' };
    }
    if (typeof call !== 'object' || call === null || Array.isArray(call)) return { kind: 'malformed', why: 'the call is not a JSON object' };
    const { name, arguments: raw } = call as { name?: unknown; arguments?: unknown };
    if (typeof name !== 'string') return { kind: 'malformed', why: 'the call has no "name" string' };
    let args: unknown = raw ?? {};
    if (typeof args === 'string') {
      try {
        args = JSON.parse(args);
      } catch {
        return { kind: 'malformed', why: '"arguments" is a string that is not JSON' };
      }
    }
    if (typeof args !== 'object' || args === null || Array.isArray(args)) return { kind: 'malformed', why: '"arguments" is not a JSON object' };
    return { kind: 'call', name, args: args as ToolArguments };
  },
  observation: (content) => `<|im_end|>\n<|im_start|>user\n<tool_response>\n${content}\n</tool_response><|im_end|>\n<|im_start|>assistant\n`,
  describe: (tools) =>
    [
      '# Tools',
      '',
      'You may call one or more functions to assist with the user query.',
      '',
      'You are provided with function signatures within <tools></tools> XML tags:',
      '<tools>',
      ...tools.map((tool) => JSON.stringify({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters ?? STRING_INPUT } })),
      '</tools>',
      '',
      'For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:',
      '<tool_call>',
      '{"name": <function-name>, "arguments": <args-json-object>}',
      '</tool_call>',
    ].join('\n'),
};

/** The call formats by the name a config gives. */
export const TOOL_CALL_FORMATS: Readonly<Record<string, ToolCallFormat>> = { 'tool-tag': TOOL_TAG, qwen3: QWEN3_TOOL_CALL };
