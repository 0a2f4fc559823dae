
/** A tool's arguments as a call wrote them: the `<tool>` block's text as `input`, or a Qwen3 call's JSON arguments. */
export type ToolArguments = Readonly<Record<string, unknown>>;

/**
 * A function a policy may call in the middle of its turn. The engine runs it with the call's arguments, bounds its time
 * and the size of what it returns, and appends the result (or a coded error line) to the turn as environment tokens.
 */
export interface Tool {
  /** What a call names: lower case letters, digits, `_` and `-`. */
  readonly name: string;
  /** What the prompt tells the policy the tool does. */
  readonly description: string;
  /** JSON Schema of the arguments (the Qwen3 format lists it in the prompt); one string `input` when absent. */
  readonly parameters?: Readonly<Record<string, unknown>>;
  /**
   * The result, a string or anything JSON can write. A throw becomes a TOOL_FAILED line. `signal` aborts when the time
   * bound passes; work that never yields (a busy loop) cannot be interrupted and holds up every match, so keep a tool's
   * work asynchronous or small.
   */
  readonly run: (args: ToolArguments, context: { readonly signal: AbortSignal }) => unknown;
  /** Milliseconds a call may take before it becomes a TOOL_TIMEOUT line (ours: 2,000). */
  readonly timeoutMs?: number;
  /** Characters of result a call may return before it becomes a TOOL_RESULT_TOO_LARGE line (ours: 2,000). */
  readonly maxResultChars?: number;
}
