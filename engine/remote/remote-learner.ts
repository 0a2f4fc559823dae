import { fail } from '../../core/errors.ts';
import { trainableShapes } from '../../native/model/lora.ts';
import { tensorOf, type Weights } from '../../native/model/weights.ts';
import type { Policy } from '../../native/runtime/policy.ts';
import type { AdamWState, AdamWStepResult } from '../../native/train/adamw.ts';
import { stepStats, type ForwardBackwardOptions, type ForwardBackwardStats, type LearnBatch, type OptimStepOptions, type StepOptions, type StepStats } from '../../native/train/learner.ts';
import type { LearnerConfigInput } from '../../native/train/learner-config.ts';
import type { KeptWeights, TrainingBackend } from '../trainer/training-backend.ts';
import { tokenFrom, type TrainerServerConfig } from './remote-config.ts';
import { adamWState, datumsOf, forwardBackwardStats, lossFnConfig, optimStepResult, TrainerClient } from './trainer-client.ts';
import { decodeTensor, encodeTensor, encodeTensors, fingerprint, type WireTensors } from './trainer-wire.ts';

export interface RemoteLearnerRequest {
  /** The policy trained: its config (an adapter's included) and weights, which this learner keeps equal to the server's. */
  readonly policy: Policy;
  /** The base as the server should find it: a model directory on its machine, or 'default' with `task`. */
  readonly baseModel: string;
  readonly task: string;
  /** The seed of the adapter's initial values (a policy with an adapter). */
  readonly adapterSeed?: number;
  readonly learner: LearnerConfigInput;
  /** AdamW moments to continue from (a resumed run's): the server is then given the policy's weights too. */
  readonly optimizer?: AdamWState;
  /** The server's bearer token, when not the value of the config's `tokenEnv`. */
  readonly token?: string;
  /**
   * Keep the trained weights on the server (remote rollouts): written for the samplers and into checkpoints there, never
   * sent here. `checkpoint`: a resumed run's directory of this policy, which the server reads its state from.
   */
  readonly keep?: { readonly checkpoint?: string };
}

/**
 * A policy trained through the trainer API: gradients and updates on the server, the policy's weights here refreshed
 * from `save_weights_for_sampler` after every update (and checked against the server's fingerprint), so rollouts,
 * weight pushes and checkpoints read them as they read the in-process learner's. The server must start from the
 * policy's own weights (checked by fingerprint); a resumed run sends its weights and moments. With `keep` (remote
 * rollouts) nothing comes back: the server writes the weights where the samplers and the checkpoints read them
 * (`kept`), and reads a resumed run's state from its checkpoint.
 */
export class RemoteLearner implements TrainingBackend {
  private saves = 0;
  readonly kept: KeptWeights | undefined;

  private constructor(
    private readonly client: TrainerClient,
    private readonly modelId: string,
    readonly weights: Weights,
    private readonly trainable: Weights,
    keep: boolean,
  ) {
    this.kept = keep ? this.keptWeights() : undefined;
  }

  static async open(config: TrainerServerConfig, request: RemoteLearnerRequest): Promise<RemoteLearner> {
    const { policy } = request;
    const client = new TrainerClient(config, request.token ?? tokenFrom(config));
    await client.checkHealth();
    const lora = policy.config.lora;
    const created = await client.createModel({
      baseModel: request.baseModel,
      task: request.task,
      ...(lora ? { lora: { rank: lora.r, alpha: lora.alpha, targetModules: lora.targetModules, initStdB: lora.initStdB, seed: request.adapterSeed ?? fail('CONFIG_INVALID', `policy "${policy.name}": an adapter trained remotely needs its seed`, { policy: policy.name }) } } : {}),
      learner: request.learner as Record<string, unknown>,
    });
    const trainable: Weights = new Map([...trainableShapes(policy.config).keys()].map((name) => [name, tensorOf(policy.weights, name)]));
    const learner = new RemoteLearner(client, created.model_id, policy.weights, trainable, request.keep !== undefined);
    let served = created.fingerprint;
    if (request.optimizer && request.keep?.checkpoint !== undefined) {
      // The server reads the checkpoint from storage both sides see: the weights do not cross the link.
      served = (await client.loadStateFrom(created.model_id, request.keep.checkpoint)).fingerprint;
    } else if (request.optimizer) {
      const moments = (m: Record<string, Float32Array>): WireTensors => Object.fromEntries(Object.entries(m).map(([name, data]) => [name, encodeTensor(data, tensorOf(trainable, name).dims)]));
      served = (await client.loadState(created.model_id, encodeTensors(trainable), { step: request.optimizer.step, m: moments(request.optimizer.m), v: moments(request.optimizer.v) })).fingerprint;
    }
    if (served !== fingerprint(trainable)) {
      await learner.release();
      fail('REMOTE_RESPONSE_INVALID', `trainer server ${config.url}: its model for policy "${policy.name}" (base_model "${request.baseModel}") does not hold the policy's weights; start the server where that base resolves to the same model`, { policy: policy.name, url: config.url });
    }
    return learner;
  }

  async forwardBackward(batch: LearnBatch, options: ForwardBackwardOptions = {}): Promise<ForwardBackwardStats> {
    checkFinite(batch);
    return forwardBackwardStats(await this.client.forwardBackward(this.modelId, datumsOf(batch), lossFnConfig(batch, options)));
  }

  /**
   * The update, then (unless the weights are kept on the server) the trained tensors fetched through
   * save_weights_for_sampler into the policy's weights.
   */
  async optimStep(options: OptimStepOptions = {}): Promise<AdamWStepResult> {
    const update = this.client.optimStep(this.modelId, options.lr);
    if (this.kept) return optimStepResult(await update);
    return optimStepResult(await this.fetchBehind(update));
  }

  /** The trained tensors saved behind `before` (a pending call) and copied into the policy's weights, checked against their fingerprint. */
  private async fetchBehind<T>(before: Promise<T>): Promise<T> {
    // Submitted behind the update, so it saves what the update left (the weights as they were, if it was refused).
    const saved = this.client.saveWeightsForSampler(this.modelId, `sampler-${++this.saves}`, true);
    const result = await before.catch(async (error: unknown) => {
      await saved.catch(() => undefined);
      throw error;
    });
    const { weights, fingerprint: served } = await saved;
    for (const [name, t] of this.trainable) {
      const sent = weights?.[name] ?? fail('REMOTE_RESPONSE_INVALID', `save_weights_for_sampler: no tensor "${name}" in the answer`, { tensor: name });
      const data = decodeTensor(sent);
      if (data.length !== t.data.length) fail('REMOTE_RESPONSE_INVALID', `save_weights_for_sampler: tensor "${name}" has ${data.length} values, expected ${t.data.length}`, { tensor: name });
      t.data.set(data);
    }
    if (fingerprint(this.trainable) !== served) fail('REMOTE_RESPONSE_INVALID', 'save_weights_for_sampler: the weights received differ from the fingerprint sent with them', {});
    return result;
  }

  private keptWeights(): KeptWeights {
    const { client, modelId } = this;
    return {
      writeForSamplers: async (dir) => void (await client.saveWeightsForSampler(modelId, `sampler-${++this.saves}`, false, dir)),
      writeState: async (target) => void (await client.saveState(modelId, target)),
      fetch: async () => void (await this.fetchBehind(Promise.resolve())),
    };
  }

  get linkBytes(): number {
    return this.client.traffic.sent + this.client.traffic.received;
  }

  async step(batch: LearnBatch, options: StepOptions = {}): Promise<StepStats> {
    // The update is submitted only once the gradients are in: a refused forward-backward must not leave an update of stale gradients behind.
    const sums = await this.forwardBackward(batch, options);
    return stepStats(await this.optimStep({ lr: options.lr }), sums);
  }

  async optimizerState(): Promise<AdamWState> {
    return adamWState(await this.client.optimizerState(this.modelId));
  }

  /** Unloads the model (best effort: a server already gone is no reason to fail the run's end). */
  async release(): Promise<void> {
    await this.client.unloadModel(this.modelId).catch(() => undefined);
  }
}

/**
 * JSON carries no NaN or infinity: a batch holding one is refused here as the in-process learner refuses its update
 * (NON_FINITE, skipped by the trainer's guard), before anything reaches the server.
 */
function checkFinite(batch: LearnBatch): void {
  for (const field of ['advantages', 'oldLogprobs', 'refLogprobs', 'lossMask', 'imitationMask'] as const) {
    const values = batch[field];
    if (values === undefined) continue;
    for (let i = 0; i < values.length; i++) {
      if (!Number.isFinite(values[i])) fail('NON_FINITE', `${field}[${i}] is ${values[i]}, which the trainer API cannot carry; update skipped`, { tensor: field, index: i });
    }
  }
}
