import { tmpdir } from 'node:os';
import { startModelServer, type ModelServer, type ModelServerOptions } from '../../server/model-server/model-server.ts';
import { TEST_TOKEN } from './server-token.ts';

/** `ludus serve-model` in this process on a free loopback port: the shipped arithmetic base as "base", 4 rows, 1 thread, the tests' token, loads from the temp directory, no access log (security-trainer.test.ts reads one). */
export function startTestModelServer(options: Partial<ModelServerOptions> = {}): Promise<ModelServer> {
  return startModelServer({ model: 'default', task: 'arithmetic', name: 'base', host: '127.0.0.1', port: 0, rows: 4, threads: 1, token: TEST_TOKEN, allowDirs: [tmpdir()], log: false, ...options });
}
