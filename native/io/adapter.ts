import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fail } from '../../core/errors.ts';
import type { ModelConfig } from '../model/config.ts';
import { adapterOf, adapterShapes, mergeAdapter, projectionDims, withAdapter } from '../model/lora.ts';
import { LORA_TARGETS, parseLoraConfig, type LoraConfig, type LoraTarget } from '../model/lora-config.ts';
import { assertFiniteWeights, type Weights } from '../model/weights.ts';
import { loadCheckpoint, readJson, saveCheckpoint, sortedJson } from './checkpoint.ts';
import { pathExists, replaceDirectory, writeFileDurably } from './files.ts';
import { isTensorWriter, readSafetensors, writeSafetensors, type SavedTensors } from './safetensors.ts';

/**
 * LoRA adapters in PEFT's layout, so they move to and from Python: `adapter_config.json` (PEFT's LoraConfig fields)
 * and `adapter_model.safetensors` holding `base_model.model.<HF projection>.lora_A.weight` [r, in] and `lora_B.weight`
 * [out, r], as `PeftModel.save_pretrained` writes them.
 */
export const ADAPTER_CONFIG_FILE = 'adapter_config.json';
export const ADAPTER_WEIGHTS_FILE = 'adapter_model.safetensors';
export const PEFT_PREFIX = 'base_model.model.';

export interface SavedAdapter {
  lora: LoraConfig;
  /** The adapter's tensors by ludus name (PEFT's without the prefix). */
  weights: Weights;
  /** `base_model_name_or_path` as recorded, or null. */
  baseModel: string | null;
}

/** PEFT's adapter_config.json for a ludus adapter: the fields PEFT reads, at the values that mean plain LoRA. */
export function peftAdapterConfig(lora: LoraConfig, baseModel: string | null): Record<string, unknown> {
  return {
    peft_type: 'LORA',
    task_type: 'CAUSAL_LM',
    base_model_name_or_path: baseModel,
    r: lora.r,
    lora_alpha: lora.alpha,
    lora_dropout: 0,
    target_modules: [...lora.targetModules].sort(),
    bias: 'none',
    fan_in_fan_out: false,
    use_rslora: false,
    use_dora: false,
    init_lora_weights: true,
    inference_mode: true,
    modules_to_save: null,
    layers_to_transform: null,
    layers_pattern: null,
    rank_pattern: {},
    alpha_pattern: {},
    revision: null,
  };
}

/** Writes an adapted policy's adapter (the base's tensors are not written) into `dir`, swapped in whole. */
export async function saveAdapter(dir: string, config: ModelConfig, weights: SavedTensors, options: { baseModel?: string | null } = {}): Promise<void> {
  await replaceDirectory(dir, (temp) => writeAdapterFiles(temp, config, weights, options));
}

/** The adapter's two files, each fsynced, into an existing directory a caller swaps in. */
export async function writeAdapterFiles(dir: string, config: ModelConfig, weights: SavedTensors, options: { baseModel?: string | null } = {}): Promise<void> {
  if (!config.lora) fail('INPUT_INVALID', `saveAdapter(${dir}): the config has no adapter`);
  await writeFileDurably(join(dir, ADAPTER_CONFIG_FILE), sortedJson(peftAdapterConfig(config.lora, options.baseModel ?? null)));
  const path = join(dir, ADAPTER_WEIGHTS_FILE);
  if (isTensorWriter(weights)) {
    await weights.writeTensors(path, new Map([...adapterShapes(config).keys()].map((name) => [`${PEFT_PREFIX}${name}`, { kind: 'param' as const, name }])));
  } else {
    await writeSafetensors(path, new Map([...adapterOf(config, weights)].map(([name, t]) => [`${PEFT_PREFIX}${name}`, t])));
  }
}

/** The LoRA shape an adapter_config.json describes; anything beyond plain LoRA is refused by name. */
function parsePeftConfig(raw: unknown, where: string): { lora: LoraConfig; baseModel: string | null } {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return fail('CONFIG_INVALID', `${where}: not a JSON object`, { file: where });
  const c = raw as Record<string, unknown>;
  if (c.peft_type !== undefined && c.peft_type !== 'LORA') fail('CONFIG_INVALID', `${where}: peft_type "${String(c.peft_type)}" is not supported (only LORA)`, { file: where, path: ['peft_type'] });
  const unsupported: Array<[string, boolean]> = [
    ['use_dora', c.use_dora === true],
    ['use_rslora', c.use_rslora === true],
    ['fan_in_fan_out', c.fan_in_fan_out === true],
    ['bias', c.bias !== undefined && c.bias !== 'none'],
    ['modules_to_save', Array.isArray(c.modules_to_save) && c.modules_to_save.length > 0],
    ['layers_to_transform', c.layers_to_transform !== undefined && c.layers_to_transform !== null],
    ['rank_pattern', isNonEmptyObject(c.rank_pattern)],
    ['alpha_pattern', isNonEmptyObject(c.alpha_pattern)],
  ];
  for (const [field, bad] of unsupported) if (bad) fail('CONFIG_INVALID', `${where}: ${field} ${JSON.stringify(c[field])} is not supported (plain LoRA only)`, { file: where, path: [field] });
  // lora_dropout is accepted whatever its value: it acts only while training, and ludus trains with none.
  const targets = c.target_modules === 'all-linear' ? [...LORA_TARGETS] : c.target_modules;
  if (!Array.isArray(targets)) {
    fail('ADAPTER_TARGET_MISMATCH', `${where}: target_modules ${JSON.stringify(c.target_modules)} is not a list of projection names (nor "all-linear")`, { file: where });
  }
  const unknown = (targets as unknown[]).filter((t) => !LORA_TARGETS.includes(t as LoraTarget));
  if (unknown.length > 0) {
    fail('ADAPTER_TARGET_MISMATCH', `${where}: target_modules ${JSON.stringify(unknown)} are not projections ludus wraps (${LORA_TARGETS.join(', ')})`, { file: where, targets: unknown });
  }
  const lora = parseLoraConfig({ r: c.r, alpha: c.lora_alpha, targetModules: targets }, where);
  const baseModel = typeof c.base_model_name_or_path === 'string' ? c.base_model_name_or_path : null;
  return { lora, baseModel };
}

const isNonEmptyObject = (v: unknown): boolean => typeof v === 'object' && v !== null && Object.keys(v).length > 0;

export interface LoadAdapterOptions {
  /** The base's name or path as the caller knows it: a recorded base_model_name_or_path that differs is refused. */
  baseModel?: string;
}

/**
 * Reads an adapter in PEFT's layout for `base`, checking every tensor against the shapes the base and the adapter's
 * config imply. Coded errors name the mismatch: ADAPTER_RANK_MISMATCH (a tensor's rank is not `r`),
 * ADAPTER_TARGET_MISMATCH (tensors of a projection not in target_modules, or a target with no tensors),
 * ADAPTER_BASE_MISMATCH (dimensions or layers the base does not have, or a different recorded base).
 */
export async function loadAdapter(dir: string, base: ModelConfig, options: LoadAdapterOptions = {}): Promise<SavedAdapter> {
  const configPath = join(dir, ADAPTER_CONFIG_FILE);
  const weightsPath = join(dir, ADAPTER_WEIGHTS_FILE);
  const { lora, baseModel, weights } = await readAdapterFiles(dir);
  if (options.baseModel !== undefined && baseModel !== null && baseModel !== options.baseModel) {
    fail('ADAPTER_BASE_MISMATCH', `${configPath}: the adapter was trained on "${baseModel}", not on "${options.baseModel}"`, { file: configPath, recorded: baseModel, base: options.baseModel });
  }
  for (const [name, tensor] of weights) checkTensor(name, tensor.dims, base, lora, weightsPath);
  const expected = adapterShapes(withAdapter(base, lora));
  for (const name of expected.keys()) {
    if (!weights.has(name)) {
      fail('ADAPTER_TARGET_MISMATCH', `${weightsPath}: tensor "${PEFT_PREFIX}${name}" is missing, though target_modules lists its projection`, { file: weightsPath, tensor: `${PEFT_PREFIX}${name}` });
    }
  }
  assertFiniteWeights(weights, weightsPath);
  return { lora, weights, baseModel };
}

/** An adapter directory's config and tensors (by ludus name), unchecked against any base. */
export async function readAdapterFiles(dir: string): Promise<SavedAdapter> {
  const configPath = join(dir, ADAPTER_CONFIG_FILE);
  const { lora, baseModel } = parsePeftConfig(await readJson(configPath, 'CONFIG_INVALID'), configPath);
  const stored = (await readSafetensors(join(dir, ADAPTER_WEIGHTS_FILE))).tensors;
  const weights: Weights = new Map([...stored].map(([name, t]) => [name.startsWith(PEFT_PREFIX) ? name.slice(PEFT_PREFIX.length) : name, t]));
  return { lora, weights, baseModel };
}

const LORA_TENSOR = /^model\.layers\.(\d+)\.(self_attn|mlp)\.(\w+)\.lora_([AB])\.weight$/;

function checkTensor(name: string, dims: number[], base: ModelConfig, lora: LoraConfig, file: string): void {
  const shown = `${PEFT_PREFIX}${name}`;
  const match = LORA_TENSOR.exec(name);
  if (!match) fail('ADAPTER_TARGET_MISMATCH', `${file}: tensor "${shown}" is not a LoRA A or B matrix of a decoder projection`, { file, tensor: shown });
  const [, layerText, , target, which] = match;
  if (!(LORA_TARGETS as readonly string[]).includes(target) || !lora.targetModules.includes(target as LoraTarget)) {
    fail('ADAPTER_TARGET_MISMATCH', `${file}: tensor "${shown}" wraps ${target}, which target_modules [${lora.targetModules}] does not list`, { file, tensor: shown, target });
  }
  const layer = Number(layerText);
  if (layer >= base.numLayers) {
    fail('ADAPTER_BASE_MISMATCH', `${file}: tensor "${shown}" is for layer ${layer}, but the base has ${base.numLayers} layers`, { file, tensor: shown, layers: base.numLayers });
  }
  if (dims.length !== 2) fail('ADAPTER_BASE_MISMATCH', `${file}: tensor "${shown}" has shape [${dims}], not a matrix`, { file, tensor: shown, shape: dims });
  const rank = which === 'A' ? dims[0] : dims[1];
  if (rank !== lora.r) {
    fail('ADAPTER_RANK_MISMATCH', `${file}: tensor "${shown}" has rank ${rank} (shape [${dims}]) but adapter_config.json says r = ${lora.r}`, { file, tensor: shown, rank, r: lora.r });
  }
  const [out, inp] = projectionDims(base, target as LoraTarget);
  const outer = which === 'A' ? dims[1] : dims[0];
  const wanted = which === 'A' ? inp : out;
  if (outer !== wanted) {
    fail('ADAPTER_BASE_MISMATCH', `${file}: tensor "${shown}" has shape [${dims}], but ${target} of the base is [${out}, ${inp}]: the adapter was made for another model`, {
      file,
      tensor: shown,
      shape: dims,
      projection: [out, inp],
    });
  }
}

/** Files copied from the base beside a merged checkpoint, when present: the tokenizer travels with the weights. */
const TOKENIZER_FILES = ['tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json', 'vocab.json', 'merges.txt'];

/**
 * `ludus merge`: the base checkpoint in `baseDir` with the adapter in `adapterDir` folded in (W + (alpha/r)·B A),
 * saved as a plain Hugging Face checkpoint in `outDir` with the base's tokenizer files.
 */
export async function mergeAdapterCheckpoint(baseDir: string, adapterDir: string, outDir: string): Promise<{ config: ModelConfig; weights: Weights }> {
  const base = await loadCheckpoint(baseDir);
  const adapter = await loadAdapter(adapterDir, base.config);
  const adapted = withAdapter(base.config, adapter.lora);
  const weights = mergeAdapter(adapted, new Map([...base.weights, ...adapter.weights]));
  const extraFiles: Record<string, Uint8Array> = {};
  for (const name of TOKENIZER_FILES) if (await pathExists(join(baseDir, name))) extraFiles[name] = await readFile(join(baseDir, name));
  await saveCheckpoint(outDir, base.config, weights, { extraFiles });
  return { config: base.config, weights };
}
