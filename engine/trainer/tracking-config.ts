import { z } from 'zod';

/**
 * Logging a run to an MLflow tracking server (`mlflow server`) beside metrics.jsonl and the TensorBoard files: off
 * unless `tracking.mlflow` is in the config. Its server and credentials can come from MLflow's own environment
 * variables, so a config shared between machines names none.
 */
export const MlflowTrackingSchema = z.strictObject({
  uri: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe('base URL of the MLflow tracking server, e.g. http://127.0.0.1:5000; absent: the MLFLOW_TRACKING_URI environment variable, as MLflow\'s own clients read it (one of the two must be set)'),
  experiment: z
    .string()
    .min(1)
    .max(500)
    .optional()
    .describe("the MLflow experiment the run is logged in, created when missing; absent: MLFLOW_EXPERIMENT_NAME, else the game's id (ours)"),
  runName: z.string().min(1).max(250).optional().describe("the MLflow run's name; absent: the name of the run directory (ours)"),
  tokenEnv: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name')
    .default('MLFLOW_TRACKING_TOKEN')
    .describe('the environment variable whose value is sent as "Authorization: Bearer <token>" (MLflow\'s own); unset, MLFLOW_TRACKING_USERNAME and MLFLOW_TRACKING_PASSWORD are sent as basic auth where both are set, else nothing'),
  timeoutMs: z
    .number()
    .int()
    .positive()
    .max(120_000)
    .default(5_000)
    .describe('per request to the tracking server; a request that fails or takes longer turns tracking off for the rest of the run with one warning, and training goes on (ours)'),
});

export const TrackingSchema = z.strictObject({
  mlflow: MlflowTrackingSchema.optional().describe('log params, every step\'s metrics and the end status to MLflow (see MLflow tracking below); absent: off'),
});

export type MlflowTrackingConfig = z.output<typeof MlflowTrackingSchema>;
export type MlflowTrackingConfigInput = z.input<typeof MlflowTrackingSchema>;
