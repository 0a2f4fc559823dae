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
  | 'MASK_EMPTY'
  | 'AUTHOR_SHARE_OUT_OF_BAND'
  | 'TRAJECTORY_INVALID'
  | 'PLUGIN_CLASH'
  | 'PLUGIN_INVALID'
  | 'PLUGIN_LOAD_FAILED'
  | 'POLICY_INVALID'
  | 'RUN_DIR_NOT_EMPTY'
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
  | 'SERVER_BUSY'
  | 'REWARD_FAILED'
  | 'REWARD_INVALID'
  | 'MODEL_NOT_FOUND'

  | 'WORLD_INVALID';

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

export const fail = (code: LudusErrorCode, message: string, details: Record<string, unknown> = {}): never => {
  throw new LudusError(code, message, details);
};
