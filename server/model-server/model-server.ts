import { closeServer, jsonServer, listen } from './json-routes.ts';
import { samplingRoutes } from './sampling-routes.ts';
import { ServedModels } from './served-models.ts';

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
}

export interface ModelServer {
  readonly url: string;
  readonly models: ServedModels;
  close(): Promise<void>;
}

/** `ludus serve-model`: ludus's own engine behind the vLLM and SGLang sampling subsets, listening once this resolves. */
export async function startModelServer(options: ModelServerOptions): Promise<ModelServer> {
  const models = await ServedModels.load(options.model, { name: options.name, rows: options.rows, threads: options.threads, task: options.task });
  const server = jsonServer(samplingRoutes(models));
  const url = await listen(server, options.host, options.port);
  return {
    url,
    models,
    async close() {
      await closeServer(server);
      await models.release();
    },
  };
}
