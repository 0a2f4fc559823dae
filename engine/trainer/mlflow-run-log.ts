import { readFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { fail, LudusError } from '../../core/errors.ts';
import { writeFileAtomically } from '../../native/io/files.ts';
import { gitCommit } from '../../native/io/git-commit.ts';
import { MlflowClient, mlflowKey, mlflowValue, type MlflowKeyValue, type MlflowMetric, type MlflowRunStatus } from '../../native/io/mlflow-client.ts';
import { LUDUS_VERSION } from '../../native/io/version.ts';
import { warnOnStderr, type Warn } from './jsonl-log.ts';
import type { MlflowTrackingConfig } from './tracking-config.ts';

/** Where a run directory keeps the MLflow run it logs to, so `--resume` continues that run instead of starting another. */
export const MLFLOW_RUN_FILE = 'mlflow.json';

/** Metrics waiting for the tracking server beyond which it is taken as unable to keep up (ours: minutes of steps of any game). */
export const MAX_PENDING_METRICS = 10_000;

/** Where and as what a run is logged, resolved from `tracking.mlflow` and MLflow's own environment variables. */
export interface MlflowTarget {
  readonly uri: string;
  readonly experiment: string;
  readonly runName: string;
  /** The Authorization header: a bearer token, else MLflow's basic-auth user and password (never in the config). */
  readonly authorization?: string;
  readonly timeoutMs: number;
}

/**
 * The server, experiment and run name of `tracking.mlflow`: the config's own values, else MLFLOW_TRACKING_URI and
 * MLFLOW_EXPERIMENT_NAME, else the game's id and the run directory's name. CONFIG_INVALID when no server is named or
 * the one named is not an HTTP tracking server (a local `mlruns` path, `databricks`).
 */
export function mlflowTarget(settings: MlflowTrackingConfig, run: { readonly game: string; readonly out: string }, env: NodeJS.ProcessEnv = process.env): MlflowTarget {
  const uri = settings.uri ?? (env.MLFLOW_TRACKING_URI || undefined);
  if (uri === undefined) fail('CONFIG_INVALID', 'tracking.mlflow: no tracking server; set tracking.mlflow.uri (e.g. "http://127.0.0.1:5000") or the MLFLOW_TRACKING_URI environment variable', { field: 'tracking.mlflow.uri' });
  if (!/^https?:\/\/[^/]/.test(uri) || !URL.canParse(uri)) {
    fail('CONFIG_INVALID', `tracking.mlflow: MLFLOW_TRACKING_URI is "${uri}"; ludus logs only to an MLflow tracking server over HTTP (an http:// or https:// URL, such as one \`mlflow server\` serves), not to a local mlruns directory or another store`, {
      field: 'MLFLOW_TRACKING_URI',
      uri,
    });
  }
  const token = env[settings.tokenEnv] || undefined;
  const { MLFLOW_TRACKING_USERNAME: user, MLFLOW_TRACKING_PASSWORD: password } = env;
  const authorization = token ? `Bearer ${token}` : user && password ? `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` : undefined;
  return {
    uri,
    experiment: settings.experiment ?? (env.MLFLOW_EXPERIMENT_NAME || run.game),
    runName: settings.runName ?? basename(resolve(run.out)),
    ...(authorization ? { authorization } : {}),
    timeoutMs: settings.timeoutMs,
  };
}

/** A training config as MLflow params: nested fields flattened to dotted keys, other values as JSON text, cut to MLflow's limits; `tracking` is left out. */
export function configParams(config: Readonly<Record<string, unknown>>): MlflowKeyValue[] {
  const params = new Map<string, string>();
  const walk = (value: unknown, path: string): void => {
    if (value === undefined) return;
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      for (const [key, inner] of Object.entries(value)) walk(inner, path === '' ? key : `${path}.${key}`);
      return;
    }
    params.set(mlflowKey(path), mlflowValue(typeof value === 'string' ? value : JSON.stringify(value)));
  };
  const { tracking: _tracking, ...rest } = config;
  walk(rest, '');
  return [...params].map(([key, value]) => ({ key, value }));
}

interface RecordedRun {
  readonly uri: string;
  readonly experiment_id: string;
  readonly run_id: string;
}

/**
 * One training run logged to MLflow, beside metrics.jsonl and the TensorBoard files. Nothing it does is awaited by
 * the training loop: requests go one at a time on a chain of their own, each bounded by the target's timeout, and the
 * metrics of steps that end while one is in flight wait (at most MAX_PENDING_METRICS) and go in the next LogBatch.
 * The first failure turns it off for the rest of the run with one warning (TRACKING_FAILED); training goes on.
 */
export class MlflowRunLog {
  private readonly client: MlflowClient;
  private chain: Promise<void> = Promise.resolve();
  private runId: string | undefined;
  private pending: MlflowMetric[] = [];
  private flushQueued = false;
  private off = false;

  private constructor(
    readonly target: MlflowTarget,
    private readonly warn: Warn,
  ) {
    this.client = new MlflowClient(target.uri, { timeoutMs: target.timeoutMs, ...(target.authorization ? { authorization: target.authorization } : {}) });
  }

  /**
   * Starts logging in the background: finds or creates the experiment, then creates the run (tags, the config as
   * params) or, for a resumed run whose directory records one on the same server, marks that run RUNNING again.
   */
  static start(target: MlflowTarget, run: { readonly out: string; readonly game: string; readonly config: Readonly<Record<string, unknown>> & { readonly seed: number }; readonly resuming: boolean }, warn: Warn = warnOnStderr): MlflowRunLog {
    const log = new MlflowRunLog(target, warn);
    log.chain = log.guard(() => log.begin(run));
    return log;
  }

  /** Queues one step's numbers (the names TensorBoard gets); non-finite values are left out, as there. */
  metrics(step: number, scalars: Readonly<Record<string, number>>): void {
    if (this.off) return;
    const timestamp = Date.now();
    for (const [name, value] of Object.entries(scalars)) if (Number.isFinite(value)) this.pending.push({ key: mlflowKey(name), value, timestamp, step });
    if (this.pending.length > MAX_PENDING_METRICS) {
      this.turnOff(new LudusError('TRACKING_FAILED', `${this.pending.length} metrics are waiting to be sent (at most ${MAX_PENDING_METRICS}): the tracking server answers too slowly for the run`, { pending: this.pending.length }));
      return;
    }
    if (this.flushQueued) return;
    this.flushQueued = true;
    this.chain = this.chain.then(() => this.guard(() => this.flush()));
  }

  /** Sends what is left and ends the run with `status`; resolves once done or given up, never rejects. */
  async close(status: MlflowRunStatus): Promise<void> {
    await this.chain;
    const runId = this.runId;
    if (runId !== undefined) await this.guard(() => this.client.updateRun(runId, status, Date.now()));
  }

  private async begin(run: Parameters<typeof MlflowRunLog.start>[1]): Promise<void> {
    const experimentId = await this.client.experimentId(this.target.experiment);
    const recorded = run.resuming ? await readRecordedRun(run.out) : undefined;
    if (recorded && recorded.uri === this.target.uri && recorded.experiment_id === experimentId) {
      await this.client.updateRun(recorded.run_id, 'RUNNING');
      this.runId = recorded.run_id;
      return;
    }
    const commit = await gitCommit(process.cwd());
    const tags: MlflowKeyValue[] = [
      { key: 'ludus.game', value: run.game },
      { key: 'ludus.seed', value: String(run.config.seed) },
      { key: 'ludus.version', value: LUDUS_VERSION },
      { key: 'ludus.out', value: resolve(run.out) },
      ...(commit ? [{ key: 'mlflow.source.git.commit', value: commit }] : []),
    ].map(({ key, value }) => ({ key, value: mlflowValue(value) }));
    const runId = await this.client.createRun({ experimentId, runName: this.target.runName, startTime: Date.now(), tags });
    this.runId = runId;
    await writeFileAtomically(join(run.out, MLFLOW_RUN_FILE), `${JSON.stringify({ uri: this.target.uri, experiment_id: experimentId, run_id: runId } satisfies RecordedRun)}\n`);
    await this.client.logBatch(runId, { params: configParams(run.config) });
  }

  private async flush(): Promise<void> {
    this.flushQueued = false;
    const metrics = this.pending.splice(0);
    if (this.runId !== undefined && metrics.length > 0) await this.client.logBatch(this.runId, { metrics });
  }

  private async guard(work: () => Promise<void>): Promise<void> {
    if (this.off) return;
    try {
      await work();
    } catch (error) {
      this.turnOff(error);
    }
  }

  private turnOff(error: unknown): void {
    if (this.off) return;
    this.off = true;
    this.pending = [];
    const said = LudusError.is(error) ? error.message : `[TRACKING_FAILED] ${(error as Error).message}`;
    this.warn(`MLflow tracking at ${this.target.uri} is off for the rest of this run: ${said}. Training goes on; metrics.jsonl and the TensorBoard files hold every step`);
  }
}

async function readRecordedRun(out: string): Promise<RecordedRun | undefined> {
  try {
    const recorded = JSON.parse(await readFile(join(out, MLFLOW_RUN_FILE), 'utf8')) as Partial<RecordedRun>;
    return typeof recorded.uri === 'string' && typeof recorded.experiment_id === 'string' && typeof recorded.run_id === 'string' ? (recorded as RecordedRun) : undefined;
  } catch {
    return undefined;
  }
}
