import { join } from 'node:path';
import { fail } from '../../core/errors.ts';
import { pathExists } from '../../native/io/files.ts';
import { baseConfig } from '../../native/model/lora.ts';
import { ensureFits, kvBytesPerPosition } from '../../native/model/memory.ts';
import type { Policy } from '../../native/runtime/policy.ts';
import { resolveModelDir } from '../../plugins/policies/default-model.ts';
import { loadPolicy } from '../../plugins/policies/load-policy.ts';
import type { TextTokenizer } from '../../plugins/tokenizers/hf-tokenizer.ts';
import type { ConfinedPaths } from '../confined-paths.ts';
import { Batcher } from './batcher.ts';

export interface ServedModel {
  readonly name: string;
  /** The directory its weights were last loaded from. */
  path: string;
  /** 0 as started; each weight update from disk counts one (or takes the version it names). */
  version: string;
  readonly batcher: Batcher;
  readonly adapter: boolean;
}

export interface ServedModelsOptions {
  /** The served name of the base model. */
  readonly name: string;
  readonly rows: number;
  readonly threads?: number;
  readonly task?: string;
  /** Where adapters and replacement weights may be loaded from. */
  readonly paths: ConfinedPaths;
  /** Adapters or models loaded beside the base at most. */
  readonly maxAdapters: number;
}

/**
 * The models one `ludus serve-model` answers for: its base model under its served name, and what was loaded next to
 * it by name through the load-adapter endpoints: a PEFT adapter over a base of the same architecture and tokenizer
 * (what a policy with an adapter is pushed as), or a full model directory of that architecture (a trained policy).
 */
export class ServedModels {
  private readonly adapters = new Map<string, ServedModel>();
  /** Names being loaded now: each holds its slot of --max-adapters from the moment its request is checked. */
  private readonly loading = new Set<string>();

  private constructor(
    readonly base: ServedModel,
    readonly tokenizer: TextTokenizer,
    private readonly options: ServedModelsOptions,
  ) {}

  static async load(model: string, options: ServedModelsOptions): Promise<ServedModels> {
    const dir = resolveModelDir(model, options.task);
    if (!(await pathExists(dir))) fail('FILE_NOT_FOUND', `${dir}: no model directory there`, { dir });
    const { policy, tokenizer } = await loadPolicy(dir, options.name);
    if (!tokenizer) fail('TOKENIZER_INVALID', `${dir}: no tokenizer.json, which serving token ids needs`, { dir });
    const positions = policy.config.maxPositionEmbeddings;
    ensureFits(`KV caches for --rows ${options.rows} × ${positions} positions`, options.rows * positions * kvBytesPerPosition(policy.config), { rows: options.rows });
    const decode = (ids: number[]) => tokenizer.decode(ids);
    const base: ServedModel = { name: options.name, path: dir, version: '0', adapter: false, batcher: new Batcher(policy, { rows: options.rows, threads: options.threads, decode }) };
    return new ServedModels(base, tokenizer, options);
  }

  get names(): string[] {
    return [this.base.name, ...this.adapters.keys()];
  }

  /** The model a request names; the base model when it names none. */
  get(name: string | null | undefined): ServedModel {
    if (name === undefined || name === null || name === this.base.name) return this.base;
    return this.adapters.get(name) ?? fail('MODEL_NOT_SERVED', `model "${name}" is not served here (served: ${this.names.join(', ')})`, { model: name });
  }

  /** Loads an adapter (or model) beside the base under `name`; its slot is taken before anything is read, so loads sent together cannot pass the bound. */
  async loadAdapter(name: string, path: string): Promise<void> {
    if (name === this.base.name || this.adapters.has(name) || this.loading.has(name)) {
      fail('REQUEST_INVALID', `an adapter or model named "${name}" is already loaded; unload it first or load under a new name`, { field: 'lora_name' });
    }
    const held = this.adapters.size + this.loading.size;
    if (held >= this.options.maxAdapters) {
      fail('REQUEST_TOO_LARGE', `${held} adapters are loaded or loading, the most this server holds (--max-adapters); unload one first`, { field: 'lora_name' });
    }
    this.loading.add(name);
    try {
      const real = await this.options.paths.confineModel(path, 'lora_path');
      const policy = await this.compatible(real, name);
      const batcher = new Batcher(policy, { rows: this.options.rows, threads: this.options.threads, decode: (ids) => this.tokenizer.decode(ids) });
      this.adapters.set(name, { name, path: real, version: '0', adapter: true, batcher });
    } finally {
      this.loading.delete(name);
    }
  }

  async unloadAdapter(name: string): Promise<void> {
    const served = this.adapters.get(name) ?? fail('MODEL_NOT_SERVED', `no adapter "${name}" is loaded (loaded: ${[...this.adapters.keys()].join(', ') || 'none'})`, { model: name });
    this.adapters.delete(name);
    await served.batcher.release();
  }

  /** Replaces the base model's weights (SGLang's update_weights_from_disk); requests decoding now finish on the old ones. */
  async updateBase(path: string, version: string | undefined): Promise<void> {
    const real = await this.options.paths.confineModel(path, 'model_path');
    const policy = await this.compatible(real, this.base.name, true);
    await this.base.batcher.replace(policy);
    this.base.path = real;
    this.base.version = version ?? String(Number(this.base.version) + 1);
  }

  async release(): Promise<void> {
    for (const served of [this.base, ...this.adapters.values()]) await served.batcher.release();
  }

  /**
   * A model directory whose architecture and tokenizer match the base's (what may be served beside it or instead of
   * it), or a PEFT adapter over such a base (beside it only).
   */
  private async compatible(path: string, name: string, replacesBase = false): Promise<Policy> {
    const adapter = await pathExists(join(path, 'adapter_config.json'));
    if (adapter && replacesBase) fail('REQUEST_INVALID', `${path} is a PEFT adapter; the served weights are replaced by a full model directory only (load an adapter beside them instead)`, { path });
    const { policy } = await loadPolicy(path, name);
    const base = this.base.batcher.policy;
    const a = { ...baseConfig(policy.config), raw: undefined };
    const b = { ...base.config, raw: undefined };
    if (JSON.stringify(a) !== JSON.stringify(b) || policy.tokenizerHash !== base.tokenizerHash) {
      fail('REQUEST_INVALID', `${path}: its ${adapter ? "base's " : ''}architecture or tokenizer differs from the served model's (${this.base.path})`, { path });
    }
    return policy;
  }
}
