import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in MLflow tracking server that holds every request to MLflow's own definitions, not to ludus's client:
 * mlflow/protos/service.proto (MLflow's repository, read at commit 0026b08d) for the endpoints, the request
 * messages and the responses, and mlflow/utils/validation.py for the names and limits the server enforces.
 *
 * - Endpoints (rpc ... option (rpc).endpoints, under /api/2.0): GET /mlflow/experiments/get-by-name,
 *   POST /mlflow/experiments/create, POST /mlflow/runs/create, POST /mlflow/runs/log-batch, POST /mlflow/runs/update.
 * - GetExperimentByName { experiment_name (validate_required) } → { experiment: Experiment }, or RESOURCE_DOES_NOT_EXIST.
 * - CreateExperiment { name (validate_required), artifact_location, tags: ExperimentTag[] } → { experiment_id };
 *   RESOURCE_ALREADY_EXISTS when the name is taken.
 * - CreateRun { experiment_id, user_id, run_name, start_time: int64, tags: RunTag[] } → { run: Run { info: RunInfo, data } }.
 * - LogBatch { run_id, metrics: Metric[], params: Param[], tags: RunTag[] } → {}; Metric { key, value: double,
 *   timestamp: int64, step: int64 }, Param and RunTag { key, value }. Request limits (rpc logBatch): at most 1000
 *   metrics, 100 params, 100 tags, 1000 in total; keys and param/tag values up to 250 characters; a param once
 *   written cannot change, and one request may not hold a param key twice (validation.py).
 * - UpdateRun { run_id, run_uuid, status: RunStatus, end_time: int64, run_name } → { run_info: RunInfo };
 *   RunStatus is RUNNING, SCHEDULED, FINISHED, FAILED or KILLED.
 * - Errors are { error_code, message } with the HTTP status MLflow maps each code to (mlflow/exceptions.py:
 *   INVALID_PARAMETER_VALUE and RESOURCE_ALREADY_EXISTS 400, RESOURCE_DOES_NOT_EXIST and ENDPOINT_NOT_FOUND 404).
 * Unknown fields are refused, as protobuf's JSON parser (json_format.ParseDict) refuses them.
 */

type FieldType = 'string' | 'int64' | 'double' | 'RunStatus' | { readonly repeated: Message };
interface Message {
  readonly fields: Readonly<Record<string, FieldType>>;
  readonly required?: readonly string[];
}

const KEY_VALUE: Message = { fields: { key: 'string', value: 'string' } };
const METRIC: Message = { fields: { key: 'string', value: 'double', timestamp: 'int64', step: 'int64', dataset_name: 'string', dataset_digest: 'string', model_id: 'string', run_id: 'string' } };

/** The request messages of service.proto that a tracking client of runs sends, by endpoint. */
const REQUESTS: Readonly<Record<string, { readonly method: 'GET' | 'POST'; readonly message: Message }>> = {
  '/api/2.0/mlflow/experiments/get-by-name': { method: 'GET', message: { fields: { experiment_name: 'string' }, required: ['experiment_name'] } },
  '/api/2.0/mlflow/experiments/create': { method: 'POST', message: { fields: { name: 'string', artifact_location: 'string', tags: { repeated: KEY_VALUE } }, required: ['name'] } },
  '/api/2.0/mlflow/runs/create': { method: 'POST', message: { fields: { experiment_id: 'string', user_id: 'string', run_name: 'string', start_time: 'int64', tags: { repeated: KEY_VALUE } } } },
  '/api/2.0/mlflow/runs/log-batch': { method: 'POST', message: { fields: { run_id: 'string', metrics: { repeated: METRIC }, params: { repeated: KEY_VALUE }, tags: { repeated: KEY_VALUE } } } },
  '/api/2.0/mlflow/runs/update': { method: 'POST', message: { fields: { run_id: 'string', run_uuid: 'string', status: 'RunStatus', end_time: 'int64', run_name: 'string' } } },
};

const RUN_STATUSES = ['RUNNING', 'SCHEDULED', 'FINISHED', 'FAILED', 'KILLED'];
/** validation.py: _VALID_PARAM_AND_METRIC_NAMES, and names that would resolve to another path are refused. */
const VALID_NAME = /^[/\w.\- ]*$/;
const LIMITS = { metrics: 1000, params: 100, tags: 100, entities: 1000, keyLength: 250, valueLength: 250 };

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly body: Record<string, unknown>;
  readonly authorization: string | undefined;
}

export interface StoredRun {
  readonly runId: string;
  readonly experimentId: string;
  readonly runName: string | undefined;
  status: string;
  endTime: number | undefined;
  readonly tags: Map<string, string>;
  readonly params: Map<string, string>;
  readonly metrics: { key: string; value: number; timestamp: number; step: number }[];
}

export interface MlflowStandIn {
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** Every request the definitions refused, with why: a conforming client leaves this empty. */
  readonly violations: string[];
  readonly experiments: Map<string, string>;
  readonly runs: Map<string, StoredRun>;
  /** Answers this endpoint (a path under /api/2.0/mlflow) with HTTP 500 INTERNAL_ERROR from now on. */
  failing: string | undefined;
  close(): Promise<void>;
}

class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly errorCode: string,
    message: string,
  ) {
    super(message);
  }
}

const invalid = (message: string) => new Refusal(400, 'INVALID_PARAMETER_VALUE', message);

function checkMessage(value: unknown, message: Message, where: string): void {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalid(`${where}: not a JSON object`);
  for (const [field, given] of Object.entries(value)) {
    const type = message.fields[field];
    if (type === undefined) throw invalid(`${where}: no field "${field}" in the message`);
    checkField(given, type, `${where}.${field}`);
  }
  for (const field of message.required ?? []) if (!(field in value)) throw invalid(`${where}: missing required field "${field}"`);
}

function checkField(value: unknown, type: FieldType, where: string): void {
  if (typeof type === 'object') {
    if (!Array.isArray(value)) throw invalid(`${where}: a repeated field must be a JSON array`);
    value.forEach((item, i) => checkMessage(item, type.repeated, `${where}[${i}]`));
    return;
  }
  const ok =
    type === 'string'
      ? typeof value === 'string'
      : type === 'double'
        ? typeof value === 'number' || value === 'NaN' || value === 'Infinity' || value === '-Infinity'
        : type === 'int64'
          ? (typeof value === 'number' && Number.isSafeInteger(value)) || (typeof value === 'string' && /^-?\d+$/.test(value))
          : RUN_STATUSES.includes(value as string);
  if (!ok) throw invalid(`${where}: ${JSON.stringify(value)} is not a ${type}`);
}

function checkName(kind: string, name: string): void {
  if (name.length > LIMITS.keyLength) throw invalid(`${kind} key "${name.slice(0, 40)}..." is ${name.length} characters (at most ${LIMITS.keyLength})`);
  const normal = name.split('/').filter((part) => part !== '' && part !== '.');
  if (!VALID_NAME.test(name) || name.startsWith('/') || name.split('/').some((part) => part === '..' || part === '.') || normal.join('/') !== name) throw invalid(`invalid ${kind} name "${name}"`);
}

/** Starts the stand-in on a free loopback port. */
export async function startMlflowStandIn(): Promise<MlflowStandIn> {
  const requests: RecordedRequest[] = [];
  const violations: string[] = [];
  const experiments = new Map<string, string>();
  const runs = new Map<string, StoredRun>();
  let nextId = 1;
  const state = { failing: undefined as string | undefined };

  const handle = (method: string, path: string, body: Record<string, unknown>): unknown => {
    const endpoint = REQUESTS[path];
    if (!endpoint) throw new Refusal(404, 'ENDPOINT_NOT_FOUND', `no endpoint ${method} ${path}`);
    if (endpoint.method !== method) throw new Refusal(405, 'ENDPOINT_NOT_FOUND', `${path} takes ${endpoint.method}, not ${method}`);
    checkMessage(body, endpoint.message, path.slice('/api/2.0/mlflow/'.length));
    if (state.failing !== undefined && path === `/api/2.0/mlflow/${state.failing}`) throw new Refusal(500, 'INTERNAL_ERROR', 'the stand-in was told to fail here');
    switch (path.slice('/api/2.0/mlflow/'.length)) {
      case 'experiments/get-by-name': {
        const name = body.experiment_name as string;
        const id = experiments.get(name);
        if (id === undefined) throw new Refusal(404, 'RESOURCE_DOES_NOT_EXIST', `Could not find experiment with name '${name}'`);
        return { experiment: { experiment_id: id, name, artifact_location: `mlflow-artifacts:/${id}`, lifecycle_stage: 'active', last_update_time: Date.now(), creation_time: Date.now(), tags: [] } };
      }
      case 'experiments/create': {
        const name = body.name as string;
        if (name === '' || name.length > 500) throw invalid(`invalid experiment name '${name}'`);
        if (experiments.has(name)) throw new Refusal(400, 'RESOURCE_ALREADY_EXISTS', `Experiment '${name}' already exists.`);
        const id = String(nextId++);
        experiments.set(name, id);
        return { experiment_id: id };
      }
      case 'runs/create': {
        const experimentId = (body.experiment_id as string | undefined) ?? '0';
        if (![...experiments.values()].includes(experimentId)) throw new Refusal(404, 'RESOURCE_DOES_NOT_EXIST', `No Experiment with id=${experimentId} exists`);
        const tags = (body.tags as { key: string; value: string }[] | undefined) ?? [];
        for (const tag of tags) checkName('tag', tag.key);
        const runId = `run${nextId++}`;
        const run: StoredRun = { runId, experimentId, runName: body.run_name as string | undefined, status: 'RUNNING', endTime: undefined, tags: new Map(tags.map((t) => [t.key, t.value])), params: new Map(), metrics: [] };
        runs.set(runId, run);
        return { run: { info: runInfo(run, Number(body.start_time ?? Date.now())), data: { metrics: [], params: [], tags } } };
      }
      case 'runs/log-batch': {
        const run = runOf(body.run_id);
        const metrics = (body.metrics as StoredRun['metrics'] | undefined) ?? [];
        const params = (body.params as { key: string; value: string }[] | undefined) ?? [];
        const tags = (body.tags as { key: string; value: string }[] | undefined) ?? [];
        if (metrics.length > LIMITS.metrics) throw invalid(`A batch logging request can contain at most ${LIMITS.metrics} metrics. Got ${metrics.length} metrics.`);
        if (params.length > LIMITS.params) throw invalid(`A batch logging request can contain at most ${LIMITS.params} params. Got ${params.length} params.`);
        if (tags.length > LIMITS.tags) throw invalid(`A batch logging request can contain at most ${LIMITS.tags} tags. Got ${tags.length} tags.`);
        if (metrics.length + params.length + tags.length > LIMITS.entities) throw invalid(`at most ${LIMITS.entities} metrics, params, and tags in total`);
        for (const metric of metrics) {
          checkName('metric', metric.key);
          if (!['value', 'timestamp'].every((field) => field in metric)) throw invalid(`metric "${metric.key}" needs a value and a timestamp`);
          if (Number(metric.timestamp) < 0) throw invalid(`metric "${metric.key}": a timestamp is a nonnegative long`);
        }
        const keys = params.map((p) => p.key);
        if (new Set(keys).size !== keys.length) throw invalid('Duplicate parameter keys have been submitted');
        for (const { key, value } of [...params, ...tags]) {
          checkName('param or tag', key);
          if (value.length > LIMITS.valueLength) throw invalid(`the value of "${key}" is ${value.length} characters (at most ${LIMITS.valueLength})`);
        }
        for (const { key, value } of params) {
          const before = run.params.get(key);
          if (before !== undefined && before !== value) throw invalid(`Changing param values is not allowed. Param with key='${key}' was already logged with value='${before}'`);
        }
        for (const { key, value } of params) run.params.set(key, value);
        for (const { key, value } of tags) run.tags.set(key, value);
        for (const metric of metrics) run.metrics.push({ key: metric.key, value: Number(metric.value), timestamp: Number(metric.timestamp), step: Number(metric.step ?? 0) });
        return {};
      }
      case 'runs/update': {
        const run = runOf(body.run_id ?? body.run_uuid);
        if (body.status !== undefined) run.status = body.status as string;
        if (body.end_time !== undefined) run.endTime = Number(body.end_time);
        return { run_info: runInfo(run, 0) };
      }
      default:
        throw new Refusal(404, 'ENDPOINT_NOT_FOUND', path);
    }
  };

  const runOf = (id: unknown): StoredRun => {
    const run = typeof id === 'string' ? runs.get(id) : undefined;
    if (!run) throw new Refusal(404, 'RESOURCE_DOES_NOT_EXIST', `Run '${String(id)}' not found`);
    return run;
  };

  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'http://stand-in');
      const method = request.method ?? 'GET';
      let body: Record<string, unknown> = {};
      let answer: { status: number; json: unknown };
      try {
        if (method === 'GET') body = Object.fromEntries(url.searchParams);
        else {
          if (!(request.headers['content-type'] ?? '').startsWith('application/json')) throw invalid(`Content-Type must be application/json, not ${request.headers['content-type']}`);
          const text = Buffer.concat(chunks).toString('utf8');
          if (Buffer.byteLength(text) > 1_000_000) throw invalid('a request may be up to 1 MB');
          body = JSON.parse(text) as Record<string, unknown>;
        }
        requests.push({ method, path: url.pathname, body, authorization: request.headers.authorization });
        answer = { status: 200, json: handle(method, url.pathname, body) };
      } catch (error) {
        const refusal = error instanceof Refusal ? error : invalid((error as Error).message);
        if (refusal.errorCode === 'INVALID_PARAMETER_VALUE' || refusal.errorCode === 'ENDPOINT_NOT_FOUND') violations.push(`${method} ${url.pathname}: ${refusal.message}`);
        answer = { status: refusal.status, json: { error_code: refusal.errorCode, message: refusal.message } };
      }
      response.writeHead(answer.status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(answer.json));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    violations,
    experiments,
    runs,
    get failing() {
      return state.failing;
    },
    set failing(endpoint) {
      state.failing = endpoint;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function runInfo(run: StoredRun, startTime: number): Record<string, unknown> {
  return {
    run_id: run.runId,
    run_uuid: run.runId,
    run_name: run.runName,
    experiment_id: run.experimentId,
    status: run.status,
    start_time: startTime,
    ...(run.endTime === undefined ? {} : { end_time: run.endTime }),
    artifact_uri: `mlflow-artifacts:/${run.experimentId}/${run.runId}/artifacts`,
    lifecycle_stage: 'active',
  };
}
