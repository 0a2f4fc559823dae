import type { AddressInfo } from 'node:net';
import { LudusError } from '../../core/errors.ts';
import { jsonServer, type Route } from './json-routes.ts';
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
  /** More routes on the same server (the trainer API). */
  readonly extraRoutes?: (models: ServedModels) => Promise<ReadonlyMap<string, Route>>;
}

export interface ModelServer {
  readonly url: string;
  readonly models: ServedModels;
  close(): Promise<void>;
}

/** `ludus serve-model`: ludus's own engine behind the vLLM and SGLang sampling subsets, listening once this resolves. */
export async function startModelServer(options: ModelServerOptions): Promise<ModelServer> {
  const models = await ServedModels.load(options.model, { name: options.name, rows: options.rows, threads: options.threads, task: options.task });
  const routes = new Map([...samplingRoutes(models), ...((await options.extraRoutes?.(models)) ?? [])]);
  const server = jsonServer(routes);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new LudusError('INPUT_INVALID', `port ${options.port} on ${options.host} is in use; pass --port N (0 picks a free one)`, { port: options.port }) : error),
    );
    server.listen(options.port, options.host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}`,
    models,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await models.release();
    },
  };
}
