import { mkdtemp, rm } from 'node:fs/promises';
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
import { TrainedModels } from './trained-models.ts';

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
      async (raw) => {
        const body = parseRequest(ForwardBackwardSchema, raw, 'forward_backward');
        if (!futures.has(body.request_id)) {
          const model = models.model(body.model_id);
          const batch = models.batch(model, body);
          futures.submit(body.request_id, model.id, () => models.forwardBackward(model, batch, body));
        }
        return submitted(body.request_id);
      },
    ],
    [
      `POST ${TRAINER_API}/optim_step`,
      async (raw) => {
        const body = parseRequest(OptimStepSchema, raw, 'optim_step');
        const model = models.model(body.model_id);
        futures.submit(body.request_id, model.id, () => models.optimStep(model, body));
        return submitted(body.request_id);
      },
    ],
    [
      `POST ${TRAINER_API}/save_weights_for_sampler`,
      async (raw) => {
        const body = parseRequest(SaveWeightsSchema, raw, 'save_weights_for_sampler');
        const model = models.model(body.model_id);
        futures.submit(body.request_id, model.id, () => models.saveForSampler(model, body));
        return submitted(body.request_id);
      },
    ],
    [
      `POST ${TRAINER_API}/get_optimizer_state`,
      async (raw) => {
        const body = parseRequest(ModelRequestSchema, raw, 'get_optimizer_state');
        const model = models.model(body.model_id);
        futures.submit(body.request_id, model.id, async () => models.optimizerState(model));
        return submitted(body.request_id);
      },
    ],
    [
      `POST ${TRAINER_API}/load_state`,
      async (raw) => {
        const body = parseRequest(LoadStateSchema, raw, 'load_state');
        if (!futures.has(body.request_id)) {
          const model = models.model(body.model_id);
          models.checkState(model, body);
          futures.submit(body.request_id, model.id, async () => models.loadState(model, body));
        }
        return submitted(body.request_id);
      },
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
