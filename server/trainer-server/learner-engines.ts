import { fail } from '../../core/errors.ts';
import { checkpointLayout, ensureWeightsFit } from '../../native/io/checkpoint.ts';
import { pathExists } from '../../native/io/files.ts';
import type { ModelConfig } from '../../native/model/config.ts';
import { adaptedWeights, initAdapter, withAdapter } from '../../native/model/lora.ts';
import type { LoraConfig } from '../../native/model/lora-config.ts';
import { chooseRunBudget } from '../../native/model/memory.ts';
import { TorchLearner } from '../../native/torch/torch-learner.ts';
import { TorchWorker, type TorchWorkerOptions, type WorkerInfo } from '../../native/torch/torch-worker.ts';
import { Learner, trainingStateBytes } from '../../native/train/learner.ts';
import { OrtLearnerBackend, type LearnerBackend } from '../../native/train/learner-backend.ts';
import type { LearnerConfig } from '../../native/train/learner-config.ts';
import { isAdapterDir, loadPolicy } from '../../plugins/policies/load-policy.ts';
import { loadTokenizer } from '../../plugins/tokenizers/hf-tokenizer.ts';
import { join } from 'node:path';

export const LEARNER_ENGINES = ['onnxruntime', 'torch'] as const;
export type LearnerEngineName = (typeof LEARNER_ENGINES)[number];

/** What a create_model call was checked to carry (its base directory confined with every file in it), before any weight is loaded. */
export interface ModelPlan {
  readonly dir: string;
  readonly learner: LearnerConfig;
  readonly lora?: { readonly config: LoraConfig; readonly seed: number };
}

/** A model as an engine made it: its config (with the adapter, if any), its learner, its tokenizer. */
export interface MadeModel {
  readonly config: ModelConfig;
  readonly learner: LearnerBackend;
  readonly tokenizerJson: unknown;
}

/** What computes a trainer server's models: the in-process onnxruntime learner, or a PyTorch worker. */
export interface LearnerEngine {
  readonly name: LearnerEngineName;
  /** What the engine is, for the server's announcement (the torch worker's version, device and world size). */
  describe(): Record<string, unknown>;
  /** The same in words, for the log. */
  summary(): string;
  create(plan: ModelPlan, maxModels: number): Promise<MadeModel>;
  close(): Promise<void>;
}

/** A rank past the hidden size adds nothing: refused, as an adapter that cannot help. */
function checkRank(plan: ModelPlan, config: ModelConfig): void {
  if (plan.lora && plan.lora.config.r > config.hiddenSize) {
    fail('REQUEST_INVALID', `lora.rank ${plan.lora.config.r} is over the base's hidden size ${config.hiddenSize}, past which a rank adds nothing`, { field: 'lora.rank' });
  }
}

/** Each model learns in this process, on onnxruntime (native/train/learner.ts). */
export class OrtEngine implements LearnerEngine {
  readonly name = 'onnxruntime';

  describe(): Record<string, unknown> {
    return { engine: this.name };
  }

  summary(): string {
    return 'the in-process onnxruntime learner';
  }

  async create(plan: ModelPlan, maxModels: number): Promise<MadeModel> {
    const { policy, tokenizer } = await loadPolicy(plan.dir);
    checkRank(plan, policy.config);
    const config = plan.lora ? withAdapter(policy.config, plan.lora.config) : policy.config;
    const weights = plan.lora ? adaptedWeights(policy.weights, initAdapter(config, plan.lora.seed)) : policy.weights;
    // The run budget is shared with the other models this server may train at once, each arena keeping its peak.
    const runBudgetBytes = plan.learner.runBudgetBytes ?? chooseRunBudget(trainingStateBytes(config), maxModels);
    const learner = await Learner.create(config, weights, { ...plan.learner, runBudgetBytes });
    return { config, learner: new OrtLearnerBackend(learner), tokenizerJson: tokenizer?.json };
  }

  async close(): Promise<void> {}
}

/** How the torch engine reaches its worker: one it starts (alone or under torchrun), or one the operator started. */
export type TorchEngineOptions = TorchWorkerOptions & { readonly attach?: string };

/**
 * Each model learns in a PyTorch worker (native/torch): started with the server, so a missing or old torch is
 * refused at start; started again by the next create_model after it died (its models are lost: clients resume
 * from their checkpoints). An attached worker is the operator's to restart.
 */
export class TorchEngine implements LearnerEngine {
  readonly name = 'torch';

  private constructor(
    private worker: TorchWorker,
    private readonly options: TorchEngineOptions,
  ) {}

  static async open(options: TorchEngineOptions): Promise<TorchEngine> {
    return new TorchEngine(await TorchEngine.connect(options), options);
  }

  private static connect(options: TorchEngineOptions): Promise<TorchWorker> {
    return options.attach !== undefined ? TorchWorker.attach(options.attach) : TorchWorker.start(options);
  }

  get info(): WorkerInfo {
    return this.worker.info;
  }

  describe(): Record<string, unknown> {
    const { torch, device, world, strategy, pid } = this.worker.info;
    return { engine: this.name, torch, device, world, strategy, pid };
  }

  summary(): string {
    const { torch, device, world, strategy, pid } = this.worker.info;
    return `a PyTorch worker (torch ${torch} on ${device}, ${world} process${world === 1 ? '' : `es, ${strategy}`}, pid ${pid})`;
  }

  async create(plan: ModelPlan): Promise<MadeModel> {
    if (!this.worker.alive) {
      if (this.options.attach !== undefined) fail('REMOTE_UNAVAILABLE', `the torch worker at ${this.options.attach} is gone; start it again, then this server`, { socket: this.options.attach });
      await this.worker.close();
      this.worker = await TorchEngine.connect(this.options);
    }
    if (await isAdapterDir(plan.dir)) fail('REQUEST_INVALID', `base_model: ${plan.dir} holds an adapter; the torch engine trains from a model directory (name the adapter's base, and its adapter as lora)`, { field: 'base_model' });
    // A worker on this machine's CPU holds the weights in its memory: a model too large is refused from its config.
    const layout = await checkpointLayout(plan.dir, this.worker.info.device === 'cpu' ? { beforeTensors: ensureWeightsFit } : {});
    checkRank(plan, layout.config);
    const learner = await TorchLearner.create(this.worker, { layout, learner: plan.learner, ...(plan.lora ? { lora: plan.lora } : {}) });
    const tokenizer = (await pathExists(join(layout.dir, 'tokenizer.json'))) ? await loadTokenizer(layout.dir) : null;
    return { config: learner.config, learner, tokenizerJson: tokenizer?.json };
  }

  close(): Promise<void> {
    return this.worker.close();
  }
}
