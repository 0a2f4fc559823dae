import { readFile, readdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { entryOf, fail, type LudusErrorCode } from '../../core/errors.ts';
import { jsonSyntaxProblem } from '../../core/json-syntax.ts';
import { parseHfConfig, toHfConfig, type ModelConfig } from '../model/config.ts';
import { assertFiniteWeights, tensorOf, validateTensors, validateWeights, type Weights, weightShapes } from '../model/weights.ts';
import { ensureFits, parameterCount, weightBytes } from '../model/memory.ts';
import { isMissingFileError, pathExists, readableDirectory, replaceDirectory, writeFileDurably } from './files.ts';
import { isTensorWriter, readSafetensors, readSafetensorsHeader, storedBytes, writeSafetensors, type EncodableDtype, type SavedTensors } from './safetensors.ts';

/** A Hugging Face checkpoint directory: config.json + model.safetensors, or shards + model.safetensors.index.json. */

export interface Checkpoint {
  config: ModelConfig;
  weights: Weights;
}

export interface SaveCheckpointOptions {
  /** Split into shards of at most this many bytes (a larger single tensor gets a shard of its own). Default 5 GB, as transformers. */
  shardBytes?: number;
  /** Storage dtype of the weights; default F32. */
  dtype?: EncodableDtype;
  /** More files to place in the directory within the same atomic swap (tokenizer.json, ...), by file name. */
  extraFiles?: Record<string, string | Uint8Array>;
}

export const CONFIG_FILE = 'config.json';
export const GENERATION_CONFIG_FILE = 'generation_config.json';
export const WEIGHTS_FILE = 'model.safetensors';
export const WEIGHTS_INDEX_FILE = 'model.safetensors.index.json';
const DEFAULT_SHARD_BYTES = 5_000_000_000;
const TORCH_DTYPE: Record<EncodableDtype, string> = { F32: 'float32', F16: 'float16', BF16: 'bfloat16' };

export async function readJson(path: string, invalidCode: LudusErrorCode): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (isMissingFileError(error)) return fail('CHECKPOINT_MISSING_FILE', `${path}: file not found`, { file: path });
    if ((error as NodeJS.ErrnoException).code === 'EISDIR') return fail(invalidCode, `${path}: is a directory, expected a JSON file`, { file: path });
    throw error;
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    return fail(invalidCode, `${path}: not valid JSON (${jsonSyntaxProblem(error)})`, { file: path });
  }
}

const isRotaryBuffer = (name: string): boolean => name.endsWith('rotary_emb.inv_freq');

/**
 * Which stored tensors to load: those the config implies. Rotary inv_freq buffers and, with tied embeddings,
 * a stored lm_head.weight are skipped; any other tensor means the config does not describe these weights.
 */
function tensorSelector(config: ModelConfig, configPath: string): (name: string, file: string) => boolean {
  const expected = weightShapes(config);
  return (name, file) => {
    if (expected.has(name)) return true;
    if (isRotaryBuffer(name) || (name === 'lm_head.weight' && config.tieWordEmbeddings)) return false;
    return fail('CONFIG_INVALID', `${file}: tensor "${name}" is not part of the model ${configPath} describes`, { file, tensor: name, config: configPath });
  };
}

function parseWeightMap(raw: unknown, where: string): Map<string, string> {
  const weightMap = (raw as { weight_map?: unknown } | null)?.weight_map;
  if (typeof weightMap !== 'object' || weightMap === null || Array.isArray(weightMap)) {
    return fail('SAFETENSORS_MALFORMED', `${where}: "weight_map" is missing or not an object`, { file: where });
  }
  const map = new Map<string, string>();
  for (const [name, shard] of Object.entries(weightMap)) {
    if (typeof shard !== 'string' || shard !== basename(shard) || shard === '..' || shard === '.' || shard.includes('\\')) {
      fail('SAFETENSORS_MALFORMED', `${where}: tensor "${name}" maps to ${JSON.stringify(shard)}, not a file name in this directory`, { file: where, tensor: name });
    }
    map.set(name, shard as string);
  }
  return map;
}

/**
 * The directory a checkpoint saved at `dir` is read from: `dir` itself, or the complete new copy a save interrupted
 * between its two renames left beside it. Refuses a path that holds no model (no config.json).
 */
export async function checkpointSource(dir: string): Promise<string> {
  const source = await readableDirectory(dir);
  if (source === undefined || !(await pathExists(join(source, CONFIG_FILE)))) {
    const why = source === undefined ? 'no such directory' : (await stat(source)).isDirectory() ? `no ${CONFIG_FILE}` : `a file, not a directory with a ${CONFIG_FILE}`;
    return fail('CHECKPOINT_MISSING_FILE', `${dir}: not a model directory (${why})`, { dir, file: join(dir, CONFIG_FILE) });
  }
  return source;
}

/** Where a checkpoint's tensors are stored: its config, and per safetensors file the tensors to read from it. */
export interface CheckpointLayout {
  readonly dir: string;
  readonly configPath: string;
  readonly config: ModelConfig;
  readonly files: readonly { readonly path: string; readonly names: readonly string[] }[];
}

/**
 * The layout of the checkpoint at `at`, read from config.json and the safetensors headers alone (no tensor is read):
 * every tensor the config implies is found, with its shape, and none it does not imply is stored.
 */
export async function checkpointLayout(at: string, options: { readonly beforeTensors?: (config: ModelConfig, configPath: string) => void } = {}): Promise<CheckpointLayout> {
  const dir = await checkpointSource(at);
  const configPath = join(dir, CONFIG_FILE);
  const config = parseHfConfig(await readJson(configPath, 'CONFIG_INVALID'), configPath);
  // A config that cannot be held is refused from the config alone, before any header is read or shape listed.
  options.beforeTensors?.(config, configPath);
  const select = tensorSelector(config, configPath);
  const singlePath = join(dir, WEIGHTS_FILE);
  const indexPath = join(dir, WEIGHTS_INDEX_FILE);
  const shapes = new Map<string, { dims: number[] }>();
  const files: { path: string; names: string[] }[] = [];
  let where: string;
  if (await pathExists(singlePath)) {
    const entries = (await readSafetensorsHeader(singlePath)).entries.filter((entry) => select(entry.name, singlePath));
    for (const entry of entries) shapes.set(entry.name, { dims: entry.shape });
    files.push({ path: singlePath, names: entries.map((entry) => entry.name) });
    where = singlePath;
  } else if (await pathExists(indexPath)) {
    const byShard = new Map<string, string[]>();
    for (const [name, shard] of parseWeightMap(await readJson(indexPath, 'SAFETENSORS_MALFORMED'), indexPath)) {
      if (select(name, indexPath)) byShard.set(shard, [...(byShard.get(shard) ?? []), name]);
    }
    for (const [shard, names] of byShard) {
      const shardPath = join(dir, shard);
      const stored = new Map((await readSafetensorsHeader(shardPath)).entries.map((entry) => [entry.name, entry.shape]));
      for (const name of names) {
        const dims = stored.get(name) ?? fail('CHECKPOINT_TENSOR_MISSING', `${shardPath}: tensor "${name}" is listed in ${indexPath} but not stored in this shard`, { file: shardPath, tensor: name });
        shapes.set(name, { dims });
      }
      files.push({ path: shardPath, names });
    }
    where = indexPath;
  } else {
    return fail('CHECKPOINT_MISSING_FILE', `${dir}: neither ${WEIGHTS_FILE} nor ${WEIGHTS_INDEX_FILE} found`, { file: singlePath });
  }
  validateTensors(weightShapes(config), shapes, where);
  return { dir, configPath, config, files };
}

/** Refuses, from its config alone, a model whose float32 weights this machine's memory cannot hold (MEMORY_INSUFFICIENT). */
export function ensureWeightsFit(config: ModelConfig, configPath: string): void {
  ensureFits(`${configPath}: the weights (${parameterCount(config)} parameters, held as float32)`, weightBytes(config), { file: configPath });
}

/** Loads config.json and the weights beside it, checked against the shapes the config implies. */
export async function loadCheckpoint(at: string): Promise<Checkpoint> {
  const layout = await checkpointLayout(at, { beforeTensors: ensureWeightsFit });
  const { config } = layout;
  const weights: Weights = new Map();
  for (const file of layout.files) {
    const wanted = new Set(file.names);
    const { tensors } = await readSafetensors(file.path, { include: (name) => wanted.has(name) });
    for (const name of file.names) weights.set(name, tensorOf(tensors, name, file.path));
  }
  const where = layout.files.length === 1 && layout.files[0].path.endsWith(WEIGHTS_FILE) ? layout.files[0].path : join(layout.dir, WEIGHTS_INDEX_FILE);
  validateWeights(config, weights, where);
  assertFiniteWeights(weights, where);
  return { config, weights };
}

/** Groups tensor names, in model order, into shards of at most `shardBytes` (transformers' greedy split). */
function planShards(config: ModelConfig, dtype: EncodableDtype, shardBytes: number): string[][] {
  const shards: string[][] = [];
  let current: string[] = [];
  let currentBytes = 0;
  for (const [name, dims] of weightShapes(config)) {
    const bytes = storedBytes(dims, dtype);
    if (current.length > 0 && currentBytes + bytes > shardBytes) {
      shards.push(current);
      current = [];
      currentBytes = 0;
    }
    current.push(name);
    currentBytes += bytes;
  }
  if (current.length > 0) shards.push(current);
  return shards;
}

const shardFileName = (index: number, count: number): string =>
  `model-${String(index + 1).padStart(5, '0')}-of-${String(count).padStart(5, '0')}.safetensors`;

/** JSON as transformers writes it: keys sorted, two-space indent, trailing newline. */
export function sortedJson(value: unknown): string {
  const sortKeys = (v: unknown): unknown =>
    typeof v === 'object' && v !== null && !Array.isArray(v)
      ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]))
      : Array.isArray(v) ? v.map(sortKeys) : v;
  return `${JSON.stringify(sortKeys(value), null, 2)}\n`;
}

function generationConfig(config: ModelConfig): Record<string, unknown> {
  const eos = config.eosTokenIds.length === 1 ? config.eosTokenIds[0] : config.eosTokenIds;
  return {
    _from_model_config: true,
    ...(config.bosTokenId === null ? {} : { bos_token_id: config.bosTokenId }),
    ...(config.eosTokenIds.length === 0 ? {} : { eos_token_id: eos }),
  };
}

function checkWeightsToSave(dir: string, config: ModelConfig, weights: Weights): void {
  const where = `saveCheckpoint(${dir})`;
  validateWeights(config, weights, where);
  const expected = weightShapes(config);
  for (const name of weights.keys()) {
    if (!expected.has(name)) fail('CONFIG_INVALID', `${where}: tensor "${name}" is not part of the model the config describes`, { tensor: name });
  }
}

function checkSave(dir: string, config: ModelConfig, weights: Weights, options: SaveCheckpointOptions): void {
  if (!((options.shardBytes ?? DEFAULT_SHARD_BYTES) > 0)) fail('INPUT_INVALID', `shardBytes must be positive, got ${options.shardBytes}`);
  checkExtraFiles(Object.keys(options.extraFiles ?? {}));
  checkWeightsToSave(dir, config, weights);
}

/** Replacing a directory deletes it, so only a checkpoint (or nothing, or an empty directory) may be replaced. */
async function checkReplaceable(dir: string): Promise<void> {
  let isDirectory: boolean;
  try {
    isDirectory = (await stat(dir)).isDirectory();
  } catch (error) {
    if (isMissingFileError(error)) return;
    throw error;
  }
  if (!isDirectory) fail('INPUT_INVALID', `${dir}: exists and is not a directory; refusing to replace it with a checkpoint`, { file: dir });
  const entries = await readdir(dir);
  if (entries.length > 0 && !entries.includes(CONFIG_FILE)) {
    fail('INPUT_INVALID', `${dir}: exists, is not empty and holds no ${CONFIG_FILE}; refusing to replace it with a checkpoint`, { file: dir });
  }
}

function checkExtraFiles(names: string[]): void {
  for (const name of names) {
    const reserved = name === CONFIG_FILE || name === GENERATION_CONFIG_FILE || /^model(-\d{5}-of-\d{5})?\.safetensors$/.test(name) || name === WEIGHTS_INDEX_FILE;
    if (reserved || name !== basename(name) || name === '.' || name === '..' || name.includes('\\')) {
      fail('INPUT_INVALID', `extra file "${name}" must be a plain file name not written by saveCheckpoint itself`, { file: name });
    }
  }
}

/**
 * Writes a checkpoint transformers can load: config.json, generation_config.json and model.safetensors (or shards
 * plus an index when larger than `shardBytes`). The directory is built beside `dir` and swapped in whole, every
 * file fsynced, so a crash leaves either the old checkpoint or the new one (see replaceDirectory).
 */
export async function saveCheckpoint(dir: string, config: ModelConfig, weights: SavedTensors, options: SaveCheckpointOptions = {}): Promise<void> {
  if (!isTensorWriter(weights)) checkSave(dir, config, weights, options);
  await checkReplaceable(dir);
  await replaceDirectory(dir, (temp) => writeCheckpointFiles(temp, config, weights, options));
}

/**
 * The files of a checkpoint, written (each fsynced) into an existing directory that a caller swaps in: one model of
 * a larger atomic save (a training checkpoint holding several policies).
 */
export async function writeCheckpointFiles(dir: string, config: ModelConfig, weights: SavedTensors, options: SaveCheckpointOptions = {}): Promise<void> {
  if (isTensorWriter(weights)) checkExtraFiles(Object.keys(options.extraFiles ?? {}));
  else checkSave(dir, config, weights, options);
  const dtype = options.dtype ?? 'F32';
  const shardBytes = options.shardBytes ?? DEFAULT_SHARD_BYTES;
  const extraFiles = options.extraFiles ?? {};
  const shards = planShards(config, dtype, shardBytes);
  const shapes = weightShapes(config);
  const write = (path: string, names: string[]): Promise<void> =>
    isTensorWriter(weights)
      ? weights.writeTensors(path, new Map(names.map((name) => [name, { kind: 'param' as const, name }])), { dtype })
      : writeSafetensors(path, new Map(names.map((name) => [name, tensorOf(weights, name)])), { dtype });
  const torchDtype = TORCH_DTYPE[dtype];
  const hfConfig = { ...toHfConfig(config), torch_dtype: torchDtype, ...('dtype' in config.raw ? { dtype: torchDtype } : {}) };
  await writeFileDurably(join(dir, CONFIG_FILE), sortedJson(hfConfig));
  await writeFileDurably(join(dir, GENERATION_CONFIG_FILE), sortedJson(generationConfig(config)));
  if (shards.length === 1) {
    await write(join(dir, WEIGHTS_FILE), shards[0]);
  } else {
    const weightMap: Record<string, string> = {};
    let totalSize = 0;
    for (let i = 0; i < shards.length; i++) {
      const file = shardFileName(i, shards.length);
      await write(join(dir, file), shards[i]);
      for (const name of shards[i]) {
        weightMap[name] = file;
        totalSize += storedBytes(entryOf(shapes, name, 'the shape of tensor'), dtype);
      }
    }
    await writeFileDurably(join(dir, WEIGHTS_INDEX_FILE), sortedJson({ metadata: { total_size: totalSize }, weight_map: weightMap }));
  }
  for (const [name, content] of Object.entries(extraFiles)) await writeFileDurably(join(dir, name), content);
}
