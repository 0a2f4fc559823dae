import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { z } from 'zod';
import { entryOf, fail } from '../../core/errors.ts';
import {
  decodeTensor,
  encodeTensor,
  encodeTensors,
  fingerprint,
  type CreateModelSchema,
  type Datum,
  type ForwardBackwardSchema,
  type LoadStateSchema,
  type OptimStepSchema,
  type SaveWeightsSchema,
  type SaveStateSchema,
  type LoadStateFromSchema,
  type WireTensors,
  wireNumber,
} from '../../engine/remote/trainer-wire.ts';
import { ADAPTER_WEIGHTS_FILE, PEFT_PREFIX, saveAdapter } from '../../native/io/adapter.ts';
import { isTensorWriter, readSafetensorsHeader } from '../../native/io/safetensors.ts';
import { momentEntries, writePolicyCheckpoint } from '../../engine/trainer/run-checkpoint.ts';
import { trainableBytes, type LearnerBackend, type TensorFile } from '../../native/train/learner-backend.ts';
import type { LearnerEngine, ModelPlan } from './learner-engines.ts';
import { checkpointLayout, saveCheckpoint } from '../../native/io/checkpoint.ts';
import type { ModelConfig } from '../../native/model/config.ts';
import { parseLoraConfig } from '../../native/model/lora-config.ts';
import type { LearnBatch } from '../../native/train/learner.ts';
import { parseLearnerConfig } from '../../native/train/learner-config.ts';
import { resolveModelDir } from '../../plugins/policies/default-model.ts';
import { within, type ConfinedPaths } from '../confined-paths.ts';
import { ensureWithin } from '../request-guard.ts';
import { OPTIMIZER_FILE, TOKENIZER_FILE } from '../../engine/trainer/training-checkpoint.ts';

export interface TrainedModel {
  readonly id: string;
  readonly config: ModelConfig;
  readonly learner: LearnerBackend;
  readonly tokenizerJson: unknown;
  /** The base model's directory (an adapter's base_model_name_or_path). */
  readonly baseDir: string;
  /** The last directory saved for samplers (removed when the next is written). */
  samplerPath?: string;
}

/** What one `ludus serve-trainer` takes at most; each a flag. */
export interface TrainerLimits {
  /** Models trained at once (--max-models). */
  readonly maxModels: number;
  /** Rows × padded tokens of one forward_backward call (--max-batch-tokens). */
  readonly maxBatchTokens: number;
}

export interface TrainedModelsOptions {
  readonly threads: number;
  readonly task?: string;
  /** ludus's own output folder: saves for samplers are written, replaced and removed only inside it. */
  readonly samplerDir: string;
  /** Where create_model may read a base model from (the shipped bases' folder among them). */
  readonly paths: ConfinedPaths;
  /** Where a client may have weights and checkpoints written (its sync and run directories on shared storage); load_state_from may read there too. */
  readonly writePaths: ConfinedPaths;
  readonly limits: TrainerLimits;
  /** What computes the models (the in-process onnxruntime learner unless given). */
  readonly engine: LearnerEngine;
}

/**
 * The models a `ludus serve-trainer` trains: each a base (or a LoRA adapter over it) with its own learner, on the
 * engine the server was started with (the in-process onnxruntime learner, so a step taken here is the step the
 * in-process learner takes, or a PyTorch worker computing the same objective). The checks that need no weights run when a
 * call is submitted (a malformed request is a 4xx then); the work runs in the call's future.
 */
export class TrainedModels {
  private readonly models = new Map<string, TrainedModel>();
  /** Slots of --max-models taken by create_model calls checked but not yet done: taken when checked, so calls sent together cannot pass the bound. */
  private reserved = 0;

  constructor(private readonly options: TrainedModelsOptions) {}

  /**
   * The checks of a create_model call that need no weights: the model count, the learner config, the base's place.
   * A plan holds a slot of --max-models until `create` ends or `withdraw` gives it back.
   */
  async plan(body: z.output<typeof CreateModelSchema>): Promise<ModelPlan> {
    const held = this.models.size + this.reserved;
    if (held >= this.options.limits.maxModels) {
      fail('REQUEST_TOO_LARGE', `${held} models are trained or being created here, the most this server holds (--max-models); unload_model one first`, { field: 'base_model' });
    }
    this.reserved += 1;
    try {
      return await this.checkedPlan(body);
    } catch (error) {
      this.reserved -= 1;
      throw error;
    }
  }

  /** Gives back the slot of a plan that will not be created. */
  withdraw(_plan: ModelPlan): void {
    this.reserved -= 1;
  }

  private async checkedPlan(body: z.output<typeof CreateModelSchema>): Promise<ModelPlan> {
    const learner = parseLearnerConfig({ ...body.learner, threads: this.options.threads });
    if (learner.klEstimator === 'exact') fail('REQUEST_INVALID', 'learner.klEstimator "exact" reads a reference model, which the trainer API does not carry; send per-token ref_logprobs (k3)', { field: 'learner.klEstimator' });
    // Only 'default' is looked up; anything else is a path, confined before the disk is asked whether it exists.
    const named = body.base_model === 'default' ? resolveModelDir('default', body.task ?? this.options.task) : body.base_model;
    const dir = await this.options.paths.confineModel(named, 'base_model');
    const lora = body.lora
      ? { config: parseLoraConfig({ r: body.lora.rank, alpha: body.lora.alpha, targetModules: body.lora.target_modules, initStdB: body.lora.init_std_b }, 'lora'), seed: body.lora.seed }
      : undefined;
    return { dir, learner, ...(lora ? { lora } : {}) };
  }

  /** Loads the planned model and its learner; the plan's slot becomes the model's (or is given back when this fails). */
  async create(plan: ModelPlan): Promise<{ model_id: string; trainable_parameters: number; fingerprint: string }> {
    try {
      return await this.created(plan);
    } finally {
      this.reserved -= 1;
    }
  }

  private async created(plan: ModelPlan): Promise<{ model_id: string; trainable_parameters: number; fingerprint: string }> {
    const { config, learner, tokenizerJson } = await this.options.engine.create(plan, this.options.limits.maxModels);
    const id = `model-${randomUUID()}`;
    this.models.set(id, { id, config, learner, tokenizerJson, baseDir: plan.dir });
    const trainable = [...learner.trainableShapes.values()].reduce((n, dims) => n + dims.reduce((a, b) => a * b, 1), 0);
    return { model_id: id, trainable_parameters: trainable, fingerprint: await learner.fingerprint() };
  }

  /** The bytes of the largest model's trained tensors (0 with none): what a load_state body carries three times over. */
  largestTrainableBytes(): number {
    return Math.max(0, ...[...this.models.values()].map((model) => trainableBytes(model.learner)));
  }

  model(id: string): TrainedModel {
    return this.models.get(id) ?? fail('MODEL_NOT_SERVED', `model_id "${id}" is not trained here (create_model first)`, { field: 'model_id' });
  }

  /** The learn batch of a forward_backward call, checked against the model: REQUEST_INVALID naming the datum and field. */
  batch(model: TrainedModel, body: z.output<typeof ForwardBackwardSchema>): LearnBatch {
    const objective = body.loss_fn === 'ppo' ? 'policy-gradient' : 'sft';
    if (objective !== model.learner.objective) {
      fail('REQUEST_INVALID', `loss_fn "${body.loss_fn}" does not match the model's learner objective "${model.learner.objective}"`, { field: 'loss_fn' });
    }
    const batch = learnBatch(body.data, objective === 'policy-gradient', body.loss_fn_config.normalization, this.options.limits.maxBatchTokens);
    model.learner.ensureStepFits(batch.rows, batch.cols);
    return batch;
  }

  async forwardBackward(model: TrainedModel, batch: LearnBatch, body: z.output<typeof ForwardBackwardSchema>) {
    const c = body.loss_fn_config;
    const sums = await model.learner.forwardBackward(batch, {
      ...(c.clip_low !== undefined ? { clipLow: c.clip_low } : {}),
      ...(c.clip_high !== undefined ? { clipHigh: c.clip_high } : {}),
      ...(c.kl_beta !== undefined ? { klBeta: c.kl_beta } : {}),
      ...(c.imitation_weight !== undefined ? { imitationWeight: c.imitation_weight } : {}),
      ...(c.entropy_coef !== undefined ? { entropyCoef: c.entropy_coef } : {}),
    });
    return { loss: wireNumber(sums.loss), tokens: sums.tokens, kl: wireNumber(sums.kl), entropy: wireNumber(sums.entropy), clipped: wireNumber(sums.clipped), micro_batches: sums.microBatches };
  }

  async optimStep(model: TrainedModel, body: z.output<typeof OptimStepSchema>) {
    const update = await model.learner.optimStep(body.adam_params ? { lr: body.adam_params.learning_rate } : {});
    return { step: update.step, grad_norm: wireNumber(update.gradNorm), clipped: update.clipped };
  }

  /**
   * Writes the model as a directory a sampler loads (`ludus serve-model`'s load-adapter endpoints read it): in the
   * server's own folder, the previous one removed, or at the client's `path` (inside a --write-dir root), which the
   * client then owns.
   */
  async saveForSampler(model: TrainedModel, body: z.output<typeof SaveWeightsSchema>) {
    if (body.path !== undefined) {
      const path = await this.options.writePaths.confineNew(body.path, 'path');
      await this.writeModel(model, path);
      return { path, step: model.learner.step, fingerprint: await model.learner.fingerprint(), ...(body.return_weights ? { weights: encodeTensors(await model.learner.trainedWeights()) } : {}) };
    }
    const path = join(this.options.samplerDir, model.id, body.name);
    if (!within(join(this.options.samplerDir, model.id), path) || path === join(this.options.samplerDir, model.id)) fail('PATH_FORBIDDEN', `name: "${body.name}" leads out of the model's folder`, { field: 'name' });
    await this.writeModel(model, path);
    if (model.samplerPath !== undefined && model.samplerPath !== path && within(this.options.samplerDir, model.samplerPath)) await rm(model.samplerPath, { recursive: true, force: true });
    model.samplerPath = path;
    const trained = await model.learner.trainedWeights();
    return {
      path,
      step: model.learner.step,
      fingerprint: fingerprint(trained),
      ...(body.return_weights ? { weights: encodeTensors(trained) } : {}),
    };
  }

  /** An adapter in PEFT's layout over the base directory (what vLLM's and SGLang's load-adapter endpoints read), else a full model directory; swapped in whole. */
  private async writeModel(model: TrainedModel, path: string): Promise<void> {
    const extraFiles: Record<string, string> = model.tokenizerJson === undefined ? {} : { [TOKENIZER_FILE]: JSON.stringify(model.tokenizerJson) };
    if (model.config.lora) await saveAdapter(path, model.config, model.learner.saved, { baseModel: model.baseDir });
    else await saveCheckpoint(path, model.config, model.learner.saved, { extraFiles });
  }

  /** The model's checkpoint directory (as a training run's checkpoint holds a policy: model or adapter, moments, tokenizer) at the client's `path`. */
  async saveState(model: TrainedModel, body: z.output<typeof SaveStateSchema>) {
    const path = await this.options.writePaths.confineNew(body.path, 'path');
    const { learner } = model;
    const saved = learner.saved;
    const optimizer = isTensorWriter(saved) ? { writer: saved, step: learner.step, names: [...learner.trainableShapes.keys()] } : await learner.optimizerState();
    await writePolicyCheckpoint(path, { config: model.config, weights: saved, optimizer, ...(model.config.lora ? { baseModel: model.baseDir } : {}) }, model.tokenizerJson);
    return { path, step: learner.step, fingerprint: await learner.fingerprint() };
  }

  /** The trained tensors and moments from a checkpoint directory saveState wrote (or any of that layout inside the server's roots). */
  async loadStateFrom(model: TrainedModel, body: z.output<typeof LoadStateFromSchema>) {
    const dir = await this.options.writePaths.confine(body.path, 'path').catch(() => this.options.paths.confine(body.path, 'path'));
    const optimizerFile = join(dir, OPTIMIZER_FILE);
    const step = Number((await readSafetensorsHeader(optimizerFile)).metadata.step);
    if (!Number.isInteger(step) || step < 0) fail('CHECKPOINT_MISSING_FILE', `${optimizerFile}: no optimizer step in its metadata`, { field: 'path' });
    const names = [...model.learner.trainableShapes.keys()];
    const weights: TensorFile[] = model.config.lora
      ? [{ path: join(dir, ADAPTER_WEIGHTS_FILE), tensors: new Map(names.map((name) => [`${PEFT_PREFIX}${name}`, { kind: 'param' as const, name }])) }]
      : (await checkpointLayout(dir)).files.map((file) => ({ path: file.path, tensors: new Map(file.names.map((name) => [name, { kind: 'param' as const, name }])) }));
    await model.learner.loadFiles([...weights, { path: optimizerFile, tensors: momentEntries(names) }], step);
    return { step, fingerprint: await model.learner.fingerprint() };
  }

  async optimizerState(model: TrainedModel) {
    const state = await model.learner.optimizerState();
    const dims = (name: string) => entryOf(model.learner.trainableShapes, name, 'the shape of trained tensor');
    const encode = (moments: Record<string, Float32Array>): WireTensors => Object.fromEntries(Object.entries(moments).map(([name, data]) => [name, encodeTensor(data, dims(name))]));
    return { step: state.step, m: encode(state.m), v: encode(state.v) };
  }

  /** Checks a load_state body against the model's trained tensors (names and sizes) before anything is written. */
  checkState(model: TrainedModel, body: z.output<typeof LoadStateSchema>): void {
    const trainable = model.learner.trainableShapes;
    for (const [field, tensors] of [['weights', body.weights], ['optimizer.m', body.optimizer.m], ['optimizer.v', body.optimizer.v]] as const) {
      for (const [name, dims] of trainable) {
        const sent = tensors[name];
        if (!sent || sent.dims.join('x') !== dims.join('x') || Buffer.byteLength(sent.data, 'base64') !== 4 * dims.reduce((a, b) => a * b, 1)) {
          fail('REQUEST_INVALID', `${field}.${name}: ${sent ? `dims [${sent.dims}] or size differ from the model's [${dims}]` : 'missing'}`, { field: `${field}.${name}` });
        }
      }
      const extra = Object.keys(tensors).find((name) => !trainable.has(name));
      if (extra !== undefined) fail('REQUEST_INVALID', `${field}.${extra}: not a trained tensor of this model`, { field: `${field}.${extra}` });
    }
  }

  async loadState(model: TrainedModel, body: z.output<typeof LoadStateSchema>) {
    const decode = (tensors: WireTensors) => Object.fromEntries(Object.entries(tensors).map(([name, t]) => [name, decodeTensor(t)]));
    await model.learner.loadState(decode(body.weights), { step: body.optimizer.step, m: decode(body.optimizer.m), v: decode(body.optimizer.v) });
    return { step: model.learner.step, fingerprint: await model.learner.fingerprint() };
  }

  async unload(id: string): Promise<void> {
    const model = this.model(id);
    this.models.delete(id);
    await model.learner.release();
    await rm(join(this.options.samplerDir, id), { recursive: true, force: true });
  }

  async release(): Promise<void> {
    for (const id of [...this.models.keys()]) await this.unload(id);
  }
}

/**
 * Datums as one right-padded batch (token 0, weight 0 past each datum's end), flat row-major: every per-token input
 * as long as the datum's tokens, `logprobs` and `advantages` in every datum of a policy-gradient call.
 */
function learnBatch(data: readonly Datum[], policyGradient: boolean, normalization: LearnBatch['normalization'], maxTokens: number): LearnBatch {
  const tokens = data.map((d) => d.model_input.chunks.flatMap((chunk) => chunk.tokens));
  const cols = Math.max(...tokens.map((t) => t.length));
  const rows = data.length;
  // Padded to the longest datum: a call of many short datums and one long one is as large as all of them long.
  ensureWithin(`forward_backward over ${rows} datums padded to ${cols} tokens`, rows * cols, maxTokens, '--max-batch-tokens', 'data');
  const has = (key: 'ref_logprobs' | 'imitation_weights') => data.some((d) => d.loss_fn_inputs[key] !== undefined);
  type Field = keyof Datum['loss_fn_inputs'];
  const fields: Field[] = ['target_tokens', 'weights', ...(policyGradient ? (['logprobs', 'advantages'] as const) : []), ...(has('ref_logprobs') ? (['ref_logprobs'] as const) : []), ...(has('imitation_weights') ? (['imitation_weights'] as const) : [])];
  const flat = new Map(fields.map((key) => [key, new Float64Array(rows * cols)] as const));
  const column = (key: Field) => entryOf(flat, key, 'the batch column');
  const inputIds = new Int32Array(rows * cols);
  data.forEach((datum, r) => {
    const n = tokens[r].length;
    if (n === 0) fail('REQUEST_INVALID', `data.${r}.model_input: no tokens`, { field: `data.${r}.model_input` });
    inputIds.set(tokens[r], r * cols);
    for (const key of fields) {
      const values = datum.loss_fn_inputs[key];
      if (values === undefined) {
        if (key === 'ref_logprobs' || key === 'imitation_weights') fail('REQUEST_INVALID', `data.${r}.loss_fn_inputs.${key}: missing, though other datums of the call have it`, { field: `data.${r}.loss_fn_inputs.${key}` });
        fail('REQUEST_INVALID', `data.${r}.loss_fn_inputs.${key}: missing (the ${policyGradient ? 'ppo' : 'cross_entropy'} loss needs it)`, { field: `data.${r}.loss_fn_inputs.${key}` });
      }
      if (values.length !== n) fail('REQUEST_INVALID', `data.${r}.loss_fn_inputs.${key}: ${values.length} values for ${n} input tokens`, { field: `data.${r}.loss_fn_inputs.${key}` });
      column(key).set(values, r * cols);
    }
  });
  return {
    rows,
    cols,
    inputIds,
    targets: Int32Array.from(column('target_tokens')),
    lossMask: column('weights'),
    ...(policyGradient ? { advantages: column('advantages'), oldLogprobs: column('logprobs') } : {}),
    ...(flat.has('ref_logprobs') ? { refLogprobs: column('ref_logprobs') } : {}),
    ...(flat.has('imitation_weights') ? { imitationMask: column('imitation_weights') } : {}),
    ...(normalization ? { normalization } : {}),
  };
}
