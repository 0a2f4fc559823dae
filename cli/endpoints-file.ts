import { existsSync } from 'node:fs';
import { EndpointsSchema, type Endpoint } from '../engine/remote/endpoint-config.ts';
import { parseConfig } from '../core/parse-config.ts';
import { readConfigFile } from './config-file.ts';

/** Where `--endpoints` looks when it is not given: this file in the working directory, when it exists. */
export const DEFAULT_ENDPOINTS_FILE = 'ludus-endpoints.json';

/**
 * The named endpoints of an endpoints file (`{ "name": { "url", "model", "tokenEnv", "sampling", … } }`), each a seat
 * `endpoint:<name>` may name; none when no file is given and the default one is absent.
 */
export async function readEndpoints(file: string | undefined): Promise<Record<string, Endpoint>> {
  const path = file ?? (existsSync(DEFAULT_ENDPOINTS_FILE) ? DEFAULT_ENDPOINTS_FILE : undefined);
  if (path === undefined) return {};
  return parseConfig(EndpointsSchema, await readConfigFile(path), `endpoints file ${path}`);
}
