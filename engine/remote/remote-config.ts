import { z } from 'zod';

const ServerUrl = z.url({ protocol: /^https?$/ }).describe('a base URL such as http://10.0.0.5:8000');

/** The token is read from the environment, never from the config, so it is not recorded with the run. */
const TokenEnv = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name')
  .default('LUDUS_TOKEN')
  .describe("the environment variable whose value is sent as \"Authorization: Bearer <token>\" (ludus's servers require it; vLLM and SGLang when started with --api-key); nothing is sent when it is unset (ours)");

/** The bearer token a config's servers are sent: the value of its `tokenEnv`, if set. */
export const tokenFrom = (config: { readonly tokenEnv: string }): string | undefined => process.env[config.tokenEnv] || undefined;

/** Where one policy is served, when not on every server of the pool. */
const ServedPolicySchema = z.strictObject({
  servers: z.array(ServerUrl).min(1).optional().describe("this policy's servers; the pool's `servers` when absent"),
  model: z.string().min(1).optional().describe("the base model's served name (vLLM `model`, e.g. its --served-model-name); the server's only model when absent"),
});

/**
 * Rollouts on vLLM or SGLang servers (or `ludus serve-model`) instead of the in-process decoders. The servers must
 * start from the policies' starting weights; trained policies are pushed to them after every optimizer step.
 */
export const RolloutServersSchema = z.strictObject({
  dialect: z.enum(['vllm', 'sglang']).describe("the servers' API: vllm (POST /v1/completions) or sglang (POST /generate); `ludus serve-model` speaks both"),
  servers: z.array(ServerUrl).min(1).describe('base URLs of the rollout servers; a row is assigned to one by its seed, so its spans meet its prefix cache'),
  policies: z.record(z.string(), ServedPolicySchema).default({}).describe('per policy: its own servers and the served name of its base model'),
  sync: z
    .enum(['adapter', 'full'])
    .default('adapter')
    .describe(
      "how a trained policy reaches the servers after each optimizer step: 'adapter' loads it under a new name per version (vLLM /v1/load_lora_adapter, SGLang /load_lora_adapter): a policy with an `adapter` as a PEFT adapter over its base, one trained in full as a model directory, which only `ludus serve-model` loads there; 'full' replaces the served weights (SGLang /update_weights_from_disk; the policy then needs servers of its own)",
    ),
  syncDir: z.string().min(1).optional().describe('where pushed weights are written, a directory the servers can read; <out>/served-weights when absent'),
  spanTokens: z
    .number()
    .int()
    .min(1)
    .default(4)
    .describe("co-decoding over HTTP: tokens asked of the active author per request, cut where the schedule hands off (ours: measured in `ludus bench remote`)"),
  tokenEnv: TokenEnv,
  maxConcurrency: z.number().int().min(1).default(64).describe('requests in flight per server (ours)'),
  timeoutMs: z.number().int().positive().default(120_000).describe('per request attempt (ours)'),
  retries: z.number().int().min(0).default(3).describe('further attempts after a transport failure, a 5xx or malformed JSON; never after a 4xx (ours)'),
  backoffMs: z.number().int().min(0).default(250).describe('wait before the first retry, doubled for each next one (ours)'),
});

export type RolloutServers = z.output<typeof RolloutServersSchema>;
export type RolloutServersInput = z.input<typeof RolloutServersSchema>;

/**
 * Learning through ludus's trainer API (operations modelled on Tinker's, not its protocol: create_model,
 * forward_backward, optim_step, save_weights_for_sampler, futures) served by `ludus serve-trainer`, instead of the in-process learner. Advantages, masks and loss weights are
 * still built here; the server only takes gradients and updates, and the trained weights come back after each step.
 */
export const TrainerServerSchema = z.strictObject({
  url: ServerUrl.describe('base URL of the trainer server (`ludus serve-trainer`)'),
  tokenEnv: TokenEnv,
  timeoutMs: z.number().int().positive().default(120_000).describe('per request attempt; a result is long-polled for at most half of it (ours)'),
  retries: z.number().int().min(0).default(3).describe('further attempts after a transport failure, a 5xx or malformed JSON (a resubmitted call runs once: calls carry request ids); never after a 4xx (ours)'),
  backoffMs: z.number().int().min(0).default(250).describe('wait before the first retry, doubled for each next one (ours)'),
});

export type TrainerServerConfig = z.output<typeof TrainerServerSchema>;
export type TrainerServerConfigInput = z.input<typeof TrainerServerSchema>;
