import { fail, LudusError } from '../../core/errors.ts';

/**
 * A small client of MLflow's tracking REST API (`/api/2.0/mlflow/...`), written against MLflow's own definitions in
 * mlflow/protos/service.proto: GetExperimentByName (GET experiments/get-by-name), CreateExperiment, CreateRun,
 * LogBatch and UpdateRun, with their JSON field names. The npm package `mlflow` (2.0.7) was not taken: its last
 * commit is from 2019, it logs every request body to stdout, and it has no timeout.
 *
 * One attempt per request, bounded by `timeoutMs`; every failure (no connection, a timeout, an HTTP error with
 * MLflow's `{ error_code, message }`) is TRACKING_FAILED naming the request, the status and MLflow's error code.
 */

/** The limits service.proto documents for one LogBatch request (rpc logBatch, "Request Limits"). */
export const MLFLOW_BATCH_LIMITS = {
  metrics: 1000,
  params: 100,
  tags: 100,
  /** Metrics, params and tags together. */
  entities: 1000,
  /** Keys of metrics, params and tags, in characters. */
  keyLength: 250,
  /** Values of params and tags, in characters: what every server accepts (newer ones take more). */
  valueLength: 250,
} as const;

/** Metric (service.proto): key, value (double), timestamp (int64, Unix ms), step (int64). */
export interface MlflowMetric {
  readonly key: string;
  readonly value: number;
  readonly timestamp: number;
  readonly step: number;
}

/** Param and RunTag (service.proto): a string key and a string value. */
export interface MlflowKeyValue {
  readonly key: string;
  readonly value: string;
}

/** RunStatus (service.proto), as its JSON form names it. */
export type MlflowRunStatus = 'RUNNING' | 'FINISHED' | 'FAILED' | 'KILLED';

export interface MlflowClientOptions {
  readonly timeoutMs: number;
  /** The Authorization header's value: `Bearer <token>` or `Basic <base64>`, as MLflow's own clients send them. */
  readonly authorization?: string;
}

/** One LogBatch body's worth of metrics, params and tags. */
export interface MlflowBatch {
  readonly metrics: readonly MlflowMetric[];
  readonly params: readonly MlflowKeyValue[];
  readonly tags: readonly MlflowKeyValue[];
}

/**
 * Splits what is to be logged into LogBatch bodies within MLFLOW_BATCH_LIMITS, in order: params and tags first (at
 * most 100 of each), metrics filling what is left of a body's 1000 entities.
 */
export function logBatches(entries: Partial<MlflowBatch>): MlflowBatch[] {
  const params = [...(entries.params ?? [])];
  const tags = [...(entries.tags ?? [])];
  const metrics = [...(entries.metrics ?? [])];
  const batches: MlflowBatch[] = [];
  while (params.length > 0 || tags.length > 0 || metrics.length > 0) {
    const batchParams = params.splice(0, MLFLOW_BATCH_LIMITS.params);
    const batchTags = tags.splice(0, MLFLOW_BATCH_LIMITS.tags);
    const room = Math.min(MLFLOW_BATCH_LIMITS.metrics, MLFLOW_BATCH_LIMITS.entities - batchParams.length - batchTags.length);
    batches.push({ metrics: metrics.splice(0, room), params: batchParams, tags: batchTags });
  }
  return batches;
}

/** MLflow's rule for metric, param and tag keys (alphanumerics, `_ - . /` and spaces; no `..` or leading `/`), applied by replacing what breaks it. */
export function mlflowKey(name: string): string {
  const key = name
    .replace(/[^/\w.\- ]/g, '_')
    .replace(/\/{2,}/g, '/')
    .replace(/^\/+|\/+$/g, '')
    .split('/')
    .map((part) => (part === '.' || part === '..' ? part.replace(/\./g, '_') : part))
    .join('/');
  return (key === '' ? '_' : key).slice(0, MLFLOW_BATCH_LIMITS.keyLength);
}

/** A param or tag value cut to what every server accepts. */
export function mlflowValue(value: string): string {
  return value.length <= MLFLOW_BATCH_LIMITS.valueLength ? value : value.slice(0, MLFLOW_BATCH_LIMITS.valueLength);
}

export class MlflowClient {
  readonly base: string;

  constructor(
    uri: string,
    private readonly options: MlflowClientOptions,
  ) {
    this.base = `${uri.replace(/\/+$/, '')}/api/2.0/mlflow`;
  }

  /** The id of the experiment named `name`, created when there is none (GetExperimentByName, then CreateExperiment). */
  async experimentId(name: string): Promise<string> {
    const found = await this.find(name);
    if (found !== undefined) return found;
    try {
      const created = await this.request('POST', '/experiments/create', { name });
      return stringField(created, 'experiment_id', 'experiments/create');
    } catch (error) {
      // Created by another process since the look-up.
      const again = LudusError.is(error, 'TRACKING_FAILED') && error.details.errorCode === 'RESOURCE_ALREADY_EXISTS' ? await this.find(name) : undefined;
      if (again === undefined) throw error;
      return again;
    }
  }

  /** CreateRun: a new run of the experiment, RUNNING; returns its run_id. */
  async createRun(run: { experimentId: string; runName: string; startTime: number; tags: readonly MlflowKeyValue[] }): Promise<string> {
    const created = await this.request('POST', '/runs/create', { experiment_id: run.experimentId, run_name: run.runName, start_time: run.startTime, tags: run.tags });
    const info = (created as { run?: { info?: unknown } } | undefined)?.run?.info;
    return stringField(info, 'run_id', 'runs/create');
  }

  /** LogBatch, split into as many requests as MLflow's limits ask, sent one after another. */
  async logBatch(runId: string, entries: Partial<MlflowBatch>): Promise<void> {
    for (const batch of logBatches(entries)) await this.request('POST', '/runs/log-batch', { run_id: runId, ...batch });
  }

  /** UpdateRun: the run's status, and its end time once it is over. */
  async updateRun(runId: string, status: MlflowRunStatus, endTime?: number): Promise<void> {
    await this.request('POST', '/runs/update', { run_id: runId, status, ...(endTime === undefined ? {} : { end_time: endTime }) });
  }

  private async find(name: string): Promise<string | undefined> {
    try {
      const found = await this.request('GET', `/experiments/get-by-name?${new URLSearchParams({ experiment_name: name })}`);
      const experiment = (found as { experiment?: { lifecycle_stage?: unknown } } | undefined)?.experiment;
      if (experiment?.lifecycle_stage === 'deleted') {
        fail('TRACKING_FAILED', `${this.base}: the MLflow experiment "${name}" is deleted; restore it (mlflow experiments restore) or name another in tracking.mlflow.experiment`, { experiment: name });
      }
      return stringField(experiment, 'experiment_id', 'experiments/get-by-name');
    } catch (error) {
      if (LudusError.is(error, 'TRACKING_FAILED') && error.details.errorCode === 'RESOURCE_DOES_NOT_EXIST') return undefined;
      throw error;
    }
  }

  private async request(method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
    const url = `${this.base}${path}`;
    const what = `${method} ${url.split('?')[0]}`;
    const timeout = AbortSignal.timeout(this.options.timeoutMs);
    let status: number;
    let text: string;
    try {
      const response = await fetch(url, {
        method,
        headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(this.options.authorization ? { authorization: this.options.authorization } : {}) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: timeout,
      });
      status = response.status;
      text = await response.text();
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      const reason = timeout.aborted ? `no answer within ${this.options.timeoutMs} ms` : (cause?.code ?? cause?.message ?? (error as Error).message);
      return fail('TRACKING_FAILED', `${what}: ${reason}`, { url, reason });
    }
    const json = parseJson(text);
    if (status >= 400) {
      const { error_code: errorCode, message } = (json ?? {}) as { error_code?: unknown; message?: unknown };
      const said = typeof errorCode === 'string' ? `${errorCode}${typeof message === 'string' ? `: ${message.slice(0, 300)}` : ''}` : text.slice(0, 300);
      return fail('TRACKING_FAILED', `${what} was refused with HTTP ${status} (${said})`, { url, status, ...(typeof errorCode === 'string' ? { errorCode } : {}) });
    }
    if (text.trim() !== '' && json === undefined) fail('TRACKING_FAILED', `${what}: the answer is not JSON (${text.slice(0, 120)})`, { url, status });
    return json;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function stringField(value: unknown, field: string, endpoint: string): string {
  const found = (value as Record<string, unknown> | undefined)?.[field];
  if (typeof found !== 'string' || found === '') fail('TRACKING_FAILED', `${endpoint}: the answer has no ${field}`, { endpoint, field });
  return found;
}
