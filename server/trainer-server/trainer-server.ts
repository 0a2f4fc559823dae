import type { z } from 'zod';
import {
  CreateModelSchema,
  ForwardBackwardSchema,
  LoadStateSchema,
  ModelRequestSchema,
  OptimStepSchema,
  RetrieveFutureSchema,
  SaveWeightsSchema,
  SaveStateSchema,
  LoadStateFromSchema,
  TRAINER_API,
  UnloadModelSchema,
} from '../../engine/remote/trainer-wire.ts';
import { AccessLog } from '../access-log.ts';
import { ConfinedPaths } from '../confined-paths.ts';
import type { ConnectionLimits } from '../connection-gate.ts';
import { closeServer, jsonServer, listen, parseRequest, type Answer, type Route } from '../model-server/json-routes.ts';
import { mebibytes, RequestGuard } from '../request-guard.ts';
import { FUTURE_LIMITS, Futures, type FutureLimits } from './futures.ts';
import { OrtEngine, type LearnerEngine } from './learner-engines.ts';
import { openSamplerDir } from './sampler-dir.ts';
import { TrainedModels, type TrainedModel, type TrainerLimits } from './trained-models.ts';

/** What one `ludus serve-trainer` takes at most, each a flag (ours: ample for ludus's client, far from exhausting a machine). */
export interface TrainerServerLimits extends TrainerLimits {
  /** Request bodies past this are refused before they are read (--max-body-mb); load_state is bounded by the models' own size. */
  readonly maxBodyBytes: number;
  /** Requests handled at once; more get 503 with Retry-After (--max-in-flight). */
  readonly maxInFlight: number;
}

export const TRAINER_SERVER_LIMITS: TrainerServerLimits = { maxBodyBytes: mebibytes(32), maxInFlight: 64, maxModels: 4, maxBatchTokens: 2 ** 18 };

/** The trained tensors and their two moments in base64 (4/3 of 3 copies), with room for the JSON around them. */
const loadStateBytes = (trainableBytes: number): number => 4 * trainableBytes + mebibytes(1);

export interface TrainerServerOptions {
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
  /** ORT threads of every model's learner (0: ORT chooses). */
  readonly threads: number;
  /** The task whose shipped base `base_model: 'default'` names when a call gives none. */
  readonly task?: string;
  /** Where save_weights_for_sampler writes; a temporary directory removed on close when absent. */
  readonly samplerDir?: string;
  /** Required on every request as `Authorization: Bearer <token>`. */
  readonly token: string;
  /** Directories create_model may read a base model from, besides the shipped bases. */
  readonly allowDirs?: readonly string[];
  /** Directories a client may have weights and checkpoints written into (save_weights_for_sampler's path, save_state). */
  readonly writeDirs?: readonly string[];
  /** Host names besides localhost and IP literals that requests may address it by. */
  readonly allowHosts?: readonly string[];
  /** Browser origins allowed to call it (none by default). */
  readonly allowOrigins?: readonly string[];
  readonly limits?: Partial<TrainerServerLimits>;
  /**
   * What computes the models: the in-process onnxruntime learner unless given; the server closes it. A function is
   * called once the server's own checks have passed (its sampler directory locked), so a refused start opens nothing.
   */
  readonly engine?: LearnerEngine | (() => Promise<LearnerEngine>);
  /** Connection caps and timeouts (CONNECTION_LIMITS where absent). */
  readonly connections?: Partial<ConnectionLimits>;
  /** How long and how much of the finished answers is kept (FUTURE_LIMITS where absent). */
  readonly futures?: Partial<FutureLimits>;
  /** Where the access log goes: a file appended to, stderr when absent, nowhere when false. */
  readonly log?: string | false;
}

/** The operations that change a model or the disk: each request to one is an access line (retrieving answers is not). */
const CHANGES_STATE = new Set(['create_model', 'forward_backward', 'optim_step', 'save_weights_for_sampler', 'save_state', 'load_state', 'load_state_from', 'unload_model'].map((op) => `POST ${TRAINER_API}/${op}`));

export interface TrainerServer {
  readonly url: string;
  readonly samplerDir: string;
  readonly engine: LearnerEngine;
  close(): Promise<void>;
}

/**
 * `ludus serve-trainer`: the trainer API (engine/remote/trainer-wire.ts) over ludus's own in-process learner or a
 * PyTorch worker (the engine). Bodies
 * are checked when submitted (a malformed one is a 400 naming the field, an unknown model a 404, and nothing runs);
 * the work runs in the call's future, in submission order per model.
 */
export async function startTrainerServer(options: TrainerServerOptions): Promise<TrainerServer> {
  const limits = { ...TRAINER_SERVER_LIMITS, ...options.limits };
  const paths = await ConfinedPaths.of(options.allowDirs ?? []);
  const writePaths = await ConfinedPaths.of(options.writeDirs ?? [], '--write-dir', 'write');
  const sampler = await openSamplerDir(options.samplerDir);
  for (const line of sampler.cleared) process.stderr.write(`serve-trainer: ${line}\n`);
  const samplerDir = sampler.dir;
  let engine: LearnerEngine;
  try {
    engine = typeof options.engine === 'function' ? await options.engine() : (options.engine ?? new OrtEngine());
  } catch (error) {
    await sampler.close();
    throw error;
  }
  const models = new TrainedModels({ threads: options.threads, samplerDir, paths, writePaths, limits, engine, ...(options.task ? { task: options.task } : {}) });
  const futures = new Futures({ ...FUTURE_LIMITS, ...options.futures });
  const submitted = (requestId: string): Answer => ({ json: { request_id: requestId } });
  /**
   * A call on one model: its body checked, its model found and `prepare` run (the checks that need the model) when
   * first submitted, the work queued behind the model's earlier calls; a resubmitted request id only answers again.
   */
  const onModel =
    <S extends z.ZodType<{ request_id: string; model_id: string }>>(op: string, schema: S, prepare: (model: TrainedModel, body: z.output<S>) => () => Promise<unknown>): Route =>
    async (raw) => {
      const body = parseRequest(schema, raw, op);
      if (!futures.has(body.request_id)) {
        const model = models.model(body.model_id);
        futures.submit(body.request_id, model.id, prepare(model, body));
      }
      return submitted(body.request_id);
    };

  const routes = new Map<string, Route>([
    ['GET /health', async () => ({ text: '' })],
    [
      `POST ${TRAINER_API}/create_model`,
      async (raw) => {
        const body = parseRequest(CreateModelSchema, raw, 'create_model');
        if (!futures.has(body.request_id)) {
          const plan = await models.plan(body);
          // The same request id sent twice at once: the second plan gives its slot back.
          if (!futures.submit(body.request_id, undefined, () => models.create(plan))) models.withdraw(plan);
        }
        return submitted(body.request_id);
      },
    ],
    [
      `POST ${TRAINER_API}/forward_backward`,
      onModel('forward_backward', ForwardBackwardSchema, (model, body) => {
        const batch = models.batch(model, body);
        return () => models.forwardBackward(model, batch, body);
      }),
    ],
    [`POST ${TRAINER_API}/optim_step`, onModel('optim_step', OptimStepSchema, (model, body) => () => models.optimStep(model, body))],
    [`POST ${TRAINER_API}/save_weights_for_sampler`, onModel('save_weights_for_sampler', SaveWeightsSchema, (model, body) => () => models.saveForSampler(model, body))],
    [`POST ${TRAINER_API}/save_state`, onModel('save_state', SaveStateSchema, (model, body) => () => models.saveState(model, body))],
    [`POST ${TRAINER_API}/load_state_from`, onModel('load_state_from', LoadStateFromSchema, (model, body) => () => models.loadStateFrom(model, body))],
    [`POST ${TRAINER_API}/get_optimizer_state`, onModel('get_optimizer_state', ModelRequestSchema, (model) => async () => models.optimizerState(model))],
    [
      `POST ${TRAINER_API}/load_state`,
      onModel('load_state', LoadStateSchema, (model, body) => {
        models.checkState(model, body);
        return async () => models.loadState(model, body);
      }),
    ],
    [
      `POST ${TRAINER_API}/retrieve_future`,
      async (raw) => {
        const body = parseRequest(RetrieveFutureSchema, raw, 'retrieve_future');
        return { json: await futures.retrieve(body.request_id, body.wait_ms) };
      },
    ],
    [
      `POST ${TRAINER_API}/unload_model`,
      async (raw) => {
        const body = parseRequest(UnloadModelSchema, raw, 'unload_model');
        models.model(body.model_id);
        // Its calls finish first; then the model, its answers and its saves are all let go.
        await futures.forget(body.model_id);
        await models.unload(body.model_id);
        return { json: { model_id: body.model_id } };
      },
    ],
  ]);
  const guard = new RequestGuard({ token: options.token, allowHosts: options.allowHosts, allowOrigins: options.allowOrigins, maxBodyBytes: limits.maxBodyBytes, maxInFlight: limits.maxInFlight });
  const bodyLimits = new Map([[`POST ${TRAINER_API}/load_state`, () => Math.max(limits.maxBodyBytes, loadStateBytes(models.largestTrainableBytes()))]]);
  const log = options.log === false ? undefined : AccessLog.open('serve-trainer', options.log);
  const server = jsonServer(routes, guard, { what: 'serve-trainer', bodyLimits, changesState: CHANGES_STATE, ...(log ? { log } : {}), ...(options.connections ? { connections: options.connections } : {}) });
  const url = await listen(server, options.host, options.port).catch(async (error: unknown) => {
    futures.close();
    await engine.close();
    await sampler.close();
    await log?.close();
    throw error;
  });
  return {
    url,
    samplerDir,
    engine,
    async close() {
      // The sampler directory (removed whole when temporary) and the log are let go however the rest ends.
      try {
        await closeServer(server);
        await futures.drain();
        futures.close();
        await models.release();
        await engine.close();
      } finally {
        await sampler.close();
        await log?.close();
      }
    },
  };
}
