export type LudusErrorCode =
  | 'CONFIG_INVALID'
  | 'MODEL_TYPE_UNSUPPORTED'
  | 'SAFETENSORS_MALFORMED'
  | 'SAFETENSORS_DTYPE_UNSUPPORTED'
  | 'CHECKPOINT_MISSING_FILE'
  | 'CHECKPOINT_TENSOR_MISSING'
  | 'CHECKPOINT_TENSOR_SHAPE'
  | 'TOKENIZER_MISMATCH'
  | 'TOKENIZER_INVALID'
  | 'NON_FINITE'
  | 'DEVICE_UNAVAILABLE'
  | 'GRAPH_INVALID'
  | 'ENGINE_RUN_FAILED'
  | 'SEQUENCE_TOO_LONG'
  | 'MEMORY_INSUFFICIENT'
  | 'INPUT_INVALID'
  | 'FILE_NOT_FOUND'
  | 'DATA_INVALID'
  | 'WORKER_FAILED'
  /** torch missing, older than the torch backend supports, or without a part a strategy needs (FSDP). */
  | 'TORCH_UNAVAILABLE'
  /** A value ludus itself put in place was missing: a defect of ludus, not of the input (`present`, `entryOf`). */
  | 'INTERNAL'
  | 'MASK_EMPTY'
  | 'AUTHOR_SHARE_OUT_OF_BAND'
  | 'TRAJECTORY_INVALID'
  | 'PLUGIN_CLASH'
  | 'PLUGIN_INVALID'
  | 'PLUGIN_LOAD_FAILED'
  | 'POLICY_INVALID'
  | 'RUN_DIR_NOT_EMPTY'
  | 'RUN_LOCKED'
  | 'NOTHING_TO_RESUME'
  | 'LOG_LINE_INVALID'
  | 'REQUEST_INVALID'
  | 'MODEL_NOT_SERVED'
  | 'ADAPTERS_UNSUPPORTED'
  | 'REMOTE_UNAVAILABLE'
  | 'REMOTE_REJECTED'
  | 'REMOTE_RESPONSE_INVALID'
  | 'REMOTE_UNSUPPORTED'
  | 'REMOTE_MISCONFIGURED'
  | 'ADAPTER_RANK_MISMATCH'
  | 'ADAPTER_TARGET_MISMATCH'
  | 'ADAPTER_BASE_MISMATCH'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'PATH_FORBIDDEN'
  | 'CONTENT_TYPE_UNSUPPORTED'
  | 'REQUEST_TOO_LARGE'
  /** A request's body did not arrive whole within the server's body timeout. */
  | 'REQUEST_TIMEOUT'
  | 'SERVER_BUSY'
  | 'REWARD_FAILED'
  | 'REWARD_INVALID'
  | 'MODEL_NOT_FOUND'
  /** An experiment tracker (MLflow) failed or fell behind: reported once as a warning; training goes on without it. */
  | 'TRACKING_FAILED'

  | 'WORLD_INVALID'
  /** A model or tokenizer the export format cannot hold (a tensor it has no place for, a value out of its range). */
  | 'EXPORT_UNSUPPORTED'
  /** An output path that exists, written only with --force. */
  | 'OUTPUT_EXISTS'
  /** A world's game tree is larger than exact measures (exploitability, a solver) enumerate: the message names its size. */
  | 'WORLD_TOO_LARGE';

/** Every error ludus raises on purpose: a stable `code`, a message naming what was wrong and where. */
export class LudusError extends Error {
  readonly code: LudusErrorCode;
  readonly details: Readonly<Record<string, unknown>>;

  constructor(code: LudusErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(`[${code}] ${message}`);
    this.name = 'LudusError';
    this.code = code;
    this.details = details;
  }

  static is(value: unknown, code?: LudusErrorCode): value is LudusError {
    return value instanceof LudusError && (code === undefined || value.code === code);
  }

  toJSON(): { code: LudusErrorCode; message: string; details: Readonly<Record<string, unknown>> } {
    return { code: this.code, message: this.message, details: this.details };
  }
}

/** Throws the coded error. A declaration, not an arrow: so `if (!x) fail(…)` narrows `x` for the lines after it. */
export function fail(code: LudusErrorCode, message: string, details: Record<string, unknown> = {}): never {
  throw new LudusError(code, message, details);
}

/**
 * A value this code path put in place (a map filled from the same keys, a field set on an earlier branch): the type
 * cannot say so, and its absence is a defect of ludus, thrown as INTERNAL naming `what`.
 */
export function present<T>(value: T | null | undefined, what: string): T {
  if (value === undefined || value === null) throw new LudusError('INTERNAL', `${what} is missing (a defect of ludus; please report it)`, { what });
  return value;
}

/** `map.get(key)` for a key the caller put there itself; a missing one is INTERNAL, naming the key. */
export function entryOf<K, V>(map: ReadonlyMap<K, V>, key: K, what: string): V {
  const value = map.get(key);
  if (value === undefined) throw new LudusError('INTERNAL', `${what} "${String(key)}" is missing (a defect of ludus; please report it)`, { what, key: String(key) });
  return value;
}
