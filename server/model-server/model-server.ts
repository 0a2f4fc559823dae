import { AccessLog } from '../access-log.ts';
import { ConfinedPaths } from '../confined-paths.ts';
import type { ConnectionLimits } from '../connection-gate.ts';
import { mebibytes, RequestGuard } from '../request-guard.ts';
import { closeServer, jsonServer, listen } from './json-routes.ts';
import { completionRoutes } from './completion-routes.ts';
import { samplingRoutes } from './sampling-routes.ts';
import { ServedModels } from './served-models.ts';

/** What one `ludus serve-model` takes at most; each a flag. */
export interface ModelServerLimits {
  /** Request bodies past this are refused before they are read (--max-body-mb). */
  readonly maxBodyBytes: number;
  /** Requests handled at once; more get 503 with Retry-After (--max-in-flight). */
  readonly maxInFlight: number;
  /** Adapters or models loaded beside the base (--max-adapters). */
  readonly maxAdapters: number;
  /** Prompt tokens plus tokens asked for, summed over a request's prompts (--max-request-tokens). */
  readonly maxRequestTokens: number;
}

/** The limits' defaults (ours): ample for ludus's own clients, far below what would exhaust a machine. */
export const MODEL_SERVER_LIMITS: ModelServerLimits = { maxBodyBytes: mebibytes(16), maxInFlight: 256, maxAdapters: 16, maxRequestTokens: 2 ** 20 };

export interface ModelServerOptions {
  /** A model directory, or 'default' (the shipped base of `task`). */
  readonly model: string;
  readonly task?: string;
  /** The served name of the model (vLLM `model`). */
  readonly name: string;
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
  /** Requests decoded together per batch. */
  readonly rows: number;
  readonly threads?: number;
  /** Required on every request as `Authorization: Bearer <token>`. */
  readonly token: string;
  /** Directories that adapters and weights may be loaded from (none: loading is refused). */
  readonly allowDirs?: readonly string[];
  /** Host names besides localhost and IP literals that requests may address it by. */
  readonly allowHosts?: readonly string[];
  /** Browser origins allowed to call it (none by default). */
  readonly allowOrigins?: readonly string[];
  readonly limits?: Partial<ModelServerLimits>;
  /** Connection caps and timeouts (CONNECTION_LIMITS where absent). */
  readonly connections?: Partial<ConnectionLimits>;
  /** Where the access log goes: a file appended to, stderr when absent, nowhere when false. */
  readonly log?: string | false;
}

/** The routes that change what is served: each request to one is an access line. */
const CHANGES_STATE = new Set(['/v1/load_lora_adapter', '/v1/unload_lora_adapter', '/load_lora_adapter', '/unload_lora_adapter', '/update_weights_from_disk', '/reset_prefix_cache', '/flush_cache'].map((path) => `POST ${path}`));

export interface ModelServer {
  readonly url: string;
  readonly models: ServedModels;
  close(): Promise<void>;
}

/** `ludus serve-model`: ludus's own engine behind the vLLM and SGLang sampling subsets, listening once this resolves. */
export async function startModelServer(options: ModelServerOptions): Promise<ModelServer> {
  const limits = { ...MODEL_SERVER_LIMITS, ...options.limits };
  const paths = await ConfinedPaths.of(options.allowDirs ?? []);
  const models = await ServedModels.load(options.model, { name: options.name, rows: options.rows, threads: options.threads, task: options.task, paths, maxAdapters: limits.maxAdapters });
  const guard = new RequestGuard({ token: options.token, allowHosts: options.allowHosts, allowOrigins: options.allowOrigins, maxBodyBytes: limits.maxBodyBytes, maxInFlight: limits.maxInFlight });
  const routes = new Map([...samplingRoutes(models, { maxRequestTokens: limits.maxRequestTokens }), ...completionRoutes(models, { maxRequestTokens: limits.maxRequestTokens })]);
  const log = options.log === false ? undefined : AccessLog.open('serve-model', options.log);
  const server = jsonServer(routes, guard, { what: 'serve-model', changesState: CHANGES_STATE, ...(log ? { log } : {}), ...(options.connections ? { connections: options.connections } : {}) });
  const url = await listen(server, options.host, options.port).catch(async (error: unknown) => {
    await models.release();
    await log?.close();
    throw error;
  });
  return {
    url,
    models,
    async close() {
      await closeServer(server);
      await models.release();
      await log?.close();
    },
  };
}
