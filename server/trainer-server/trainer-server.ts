import { mkdtemp, rm } from 'node:fs/promises';
import type { z } from 'zod';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateModelSchema,
  ForwardBackwardSchema,
  LoadStateSchema,
  ModelRequestSchema,
  OptimStepSchema,
  RetrieveFutureSchema,
  SaveWeightsSchema,
  TRAINER_API,
  UnloadModelSchema,
} from '../../engine/remote/trainer-wire.ts';
import { closeServer, jsonServer, listen, parseRequest, type Answer, type Route } from '../model-server/json-routes.ts';
import { Futures } from './futures.ts';
import { TrainedModels, type TrainedModel } from './trained-models.ts';

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
}

export interface TrainerServer {
  readonly url: string;
  readonly samplerDir: string;
  close(): Promise<void>;
}

/**
 * `ludus serve-trainer`: the trainer API (engine/remote/trainer-wire.ts) over ludus's own in-process learner. Bodies
 * are checked when submitted (a malformed one is a 400 naming the field, an unknown model a 404, and nothing runs);
 * the work runs in the call's future, in submission order per model.
 */
export async function startTrainerServer(options: TrainerServerOptions): Promise<TrainerServer> {
  const samplerDir = options.samplerDir ?? (await mkdtemp(join(tmpdir(), 'ludus-trainer-')));
  const models = new TrainedModels({ threads: options.threads, samplerDir, ...(options.task ? { task: options.task } : {}) });
  const futures = new Futures();
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
          const plan = models.plan(body);
          futures.submit(body.request_id, undefined, () => models.create(plan));
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
        await futures.drain();
        await models.unload(body.model_id);
        return { json: { model_id: body.model_id } };
      },
    ],
  ]);
  const server = jsonServer(routes);
  const url = await listen(server, options.host, options.port);
  return {
    url,
    samplerDir,
    async close() {
      await closeServer(server);
      await futures.drain();
      await models.release();
      if (options.samplerDir === undefined) await rm(samplerDir, { recursive: true, force: true });
    },
  };
}
