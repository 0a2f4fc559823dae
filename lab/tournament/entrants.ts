import { readFile, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import type { AnyGame } from '../../core/catalog.ts';
import { fail } from '../../core/errors.ts';
import type { Task } from '../../core/tasks/task.ts';
import { adapterSeed } from '../../engine/trainer/policy-plan.ts';
import { ADAPTER_CONFIG_FILE, loadAdapter, readAdapterFiles } from '../../native/io/adapter.ts';
import { CONFIG_FILE } from '../../native/io/checkpoint.ts';
import { isMissingFileError, pathExists } from '../../native/io/files.ts';
import { parseHfConfig, type ModelConfig } from '../../native/model/config.ts';
import type { Endpoint } from '../../engine/remote/endpoint-config.ts';
import type { LoraConfig } from '../../native/model/lora-config.ts';
import { resolveModelDir } from '../../plugins/policies/default-model.ts';
import { isAdapterDir } from '../../plugins/policies/load-policy.ts';
import { loadTokenizer, type TextTokenizer } from '../../plugins/tokenizers/hf-tokenizer.ts';
import type { EntrantConfig, TournamentConfig } from './tournament-config.ts';

/** An adapter entrant's adapter: the base it sits on and its shape. */
export interface AdapterRecord {
  /** The full model directory it sits on (resolved), shared in memory by every adapter on it. */
  readonly base: string;
  readonly lora: LoraConfig;
  /** A fresh adapter, initialised from this seed (the entrant's `dir` is then its base); absent: read from `dir`. */
  readonly seed?: number;
}

/** An entrant of the pool, as the league state records it. */
export interface EntrantRecord {
  readonly name: string;
  /** The model directory it started from (resolved: 'default' is the shipped base's directory), or its adapter's directory. */
  readonly dir: string;
  /** Present for an adapter entrant. */
  readonly adapter?: AdapterRecord;
  readonly trainable: boolean;
  /** The games it enters. */
  readonly games: readonly string[];
  /** A snapshot: the entrant it copies and the round it was taken after. */
  readonly snapshotOf?: string;
  readonly round?: number;
  /** An entrant behind an endpoint (its `dir` is then the endpoint's URL): played by its text, never loaded or trained. */
  readonly endpoint?: Endpoint;
}

/** A game of the tournament, built from the catalog, with the sides its lineups are rated by. */
export interface TournamentGame {
  readonly id: string;
  readonly game: AnyGame;
  /** Roles paid together, one or two sides. */
  readonly sides: readonly (readonly string[])[];
  readonly swapSeats: boolean;
}

/** The sides of a game: the config's, else one side of co-writing authors or one side per role of a sequential game. */
export function sidesOf(game: AnyGame, configured: readonly (readonly string[])[] | undefined): string[][] {
  const roles: readonly string[] = game.roles;
  const sides = configured?.map((side) => [...side]) ?? (game.protocol.family === 'co-decoding' ? [[...roles]] : roles.map((role) => [role]));
  const listed = sides.flat();
  for (const role of listed) if (!roles.includes(role)) fail('CONFIG_INVALID', `games: game "${game.id}" has no role "${role}" (its roles: ${roles.join(', ')})`, { field: 'games.sides', game: game.id });
  for (const role of roles) {
    const count = listed.filter((r) => r === role).length;
    if (count !== 1) fail('CONFIG_INVALID', `games: game "${game.id}" lists role "${role}" on ${count} sides; every role is on exactly one`, { field: 'games.sides', game: game.id });
  }
  if (sides.length > 2) {
    fail('CONFIG_INVALID', `games: game "${game.id}" has ${sides.length} sides; a tournament pairs two entrants, so give "sides" of one or two groups of roles`, { field: 'games.sides', game: game.id });
  }
  return sides;
}

/**
 * The configured entrants, checked before any match runs: names unique, games known, a model directory with a
 * config.json and a tokenizer.json that every entrant shares, a context window that holds the games' turns.
 */
export async function checkEntrants(
  config: TournamentConfig,
  games: readonly TournamentGame[],
  task: Task,
): Promise<{ entrants: EntrantRecord[]; tokenizer: TextTokenizer; stopTokens: number[]; maxLen: number }> {
  const names = new Set<string>();
  for (const entrant of config.entrants) {
    if (names.has(entrant.name)) fail('CONFIG_INVALID', `entrants: "${entrant.name}" is named twice`, { field: 'entrants', entrant: entrant.name });
    names.add(entrant.name);
    for (const game of entrant.games ?? []) {
      if (!games.some((g) => g.id === game)) {
        fail('CONFIG_INVALID', `entrants.${entrant.name}: enters game "${game}", which this tournament does not play (its games: ${games.map((g) => g.id).join(', ')})`, { field: `entrants.${entrant.name}.games`, entrant: entrant.name });
      }
    }
    if (entrant.endpoint) {
      const why = (field: string, what: string) => fail('CONFIG_INVALID', `entrants.${entrant.name}: an endpoint entrant ${what}`, { field: `entrants.${entrant.name}.${field}`, entrant: entrant.name });
      if (entrant.trainable) why('trainable', 'is frozen: its weights are elsewhere');
      if (entrant.adapter || entrant.base !== undefined) why('adapter', 'has no weights here to put an adapter on');
      for (const game of games.filter((g) => entrant.games === undefined || entrant.games.includes(g.id))) {
        if (game.game.protocol.family === 'co-decoding') {
          why('games', `cannot play "${game.id}", whose authors co-write every turn token by token (an endpoint answers text, without each token's log-probability); give it "games" without it`);
        }
      }
    }
    if (entrant.snapshotEvery !== undefined && !entrant.trainable) {
      fail('CONFIG_INVALID', `entrants.${entrant.name}: snapshotEvery is for trainable entrants (a frozen one never changes)`, { field: `entrants.${entrant.name}.snapshotEvery`, entrant: entrant.name });
    }
  }
  for (const { id } of games) {
    const playing = config.entrants.filter((e) => e.games === undefined || e.games.includes(id));
    if (playing.length < 2) fail('CONFIG_INVALID', `games: "${id}" is entered by ${playing.length} entrant(s); a pairing needs two`, { field: 'games', game: id });
  }
  const prompts = Array.from({ length: config.problemsPerRound }, (_, i) => task.sample('train', i).prompt);
  let shared: { name: string; tokenizer: TextTokenizer; config: ModelConfig } | undefined;
  const entrants: EntrantRecord[] = [];
  const stopTokens = new Set<number>();
  let maxLen = Number.POSITIVE_INFINITY;
  let adapterBase: { name: string; base: string; real: string } | undefined;
  for (const [index, entrant] of config.entrants.entries()) {
    if (entrant.endpoint) {
      entrants.push({ name: entrant.name, dir: entrant.endpoint.url, trainable: false, games: entrant.games ?? games.map((g) => g.id), endpoint: entrant.endpoint });
      continue;
    }
    const { dir, modelDir, adapter } = await entrantWeights(entrant, index, config);
    const model = await readModelConfig(entrant.name, modelDir);
    const tokenizer = await loadTokenizer(modelDir).catch((error: unknown) => fail('POLICY_INVALID', `entrant "${entrant.name}": ${modelDir} has no usable tokenizer.json, which matches need (${String(error)})`, { entrant: entrant.name, dir: modelDir }));
    if (adapter) {
      // Adapters are batched over one shared base: an adapter on another base cannot join their rows.
      const real = await realpath(adapter.base);
      adapterBase ??= { name: entrant.name, base: adapter.base, real };
      if (real !== adapterBase.real) {
        fail('ADAPTER_BASE_MISMATCH', `entrant "${entrant.name}" is an adapter on ${adapter.base}, but "${adapterBase.name}" is one on ${adapterBase.base}; the adapter entrants of a tournament share one base`, {
          entrant: entrant.name,
          base: adapter.base,
          other: adapterBase.base,
        });
      }
      if (adapter.seed === undefined) await loadAdapter(dir, model);
      if (dir !== modelDir && (await pathExists(join(dir, 'tokenizer.json')))) {
        const own = await loadTokenizer(dir);
        if (own.hash !== tokenizer.hash) fail('TOKENIZER_MISMATCH', `entrant "${entrant.name}": the adapter's tokenizer.json (${own.hash}) is not its base's (${tokenizer.hash})`, { entrant: entrant.name, dir });
      }
    }
    shared ??= { name: entrant.name, tokenizer, config: model };
    if (tokenizer.hash !== shared.tokenizer.hash || model.vocabSize !== shared.config.vocabSize) {
      fail('TOKENIZER_MISMATCH', `entrant "${entrant.name}" (${modelDir}) reads tokens differently from "${shared.name}" (tokenizer ${tokenizer.hash}, vocabulary ${model.vocabSize} vs ${shared.tokenizer.hash}, ${shared.config.vocabSize}); every entrant of a tournament shares one tokenizer`, {
        entrant: entrant.name,
        dir: modelDir,
      });
    }
    const entered = entrant.games ?? games.map((g) => g.id);
    for (const game of games.filter((g) => entered.includes(g.id))) checkContext(entrant.name, model, game.game, prompts.map((prompt) => tokenizer.encode(prompt).length), config.maxNewTokens);
    entrants.push({ name: entrant.name, dir, ...(adapter ? { adapter } : {}), trainable: entrant.trainable, games: entered });
    for (const id of model.eosTokenIds) stopTokens.add(id);
    maxLen = Math.min(maxLen, model.maxPositionEmbeddings);
  }
  if (!shared) fail('CONFIG_INVALID', 'entrants: every entrant is behind an endpoint; one with weights here gives the tournament its tokenizer', { field: 'entrants' });
  return { entrants, tokenizer: shared.tokenizer, stopTokens: [...stopTokens], maxLen };
}

/**
 * Where an entrant's weights are: `dir` (its model or adapter directory), `modelDir` (the full model it reads: itself,
 * or an adapter's base) and its adapter. An adapter `init` sits on `base`, else on its recorded base_model_name_or_path.
 */
async function entrantWeights(entrant: EntrantConfig, index: number, config: TournamentConfig): Promise<{ dir: string; modelDir: string; adapter?: AdapterRecord }> {
  const dir = resolveModelDir(entrant.init, config.task);
  const where = `entrants.${entrant.name}`;
  const adapterInit = await isAdapterDir(dir);
  if (entrant.adapter) {
    if (adapterInit) fail('CONFIG_INVALID', `${where}: init ${dir} is already an adapter; "adapter" makes a new one over a full model (drop "adapter" to play this one)`, { field: `${where}.adapter`, entrant: entrant.name });
    if (entrant.base !== undefined) fail('CONFIG_INVALID', `${where}: "base" is for an adapter init; with "adapter", init is the base`, { field: `${where}.base`, entrant: entrant.name });
    const { seed, ...lora } = entrant.adapter;
    return { dir, modelDir: dir, adapter: { base: dir, lora, seed: seed ?? adapterSeed(config.seed, index) } };
  }
  if (!adapterInit) {
    if (entrant.base !== undefined) fail('CONFIG_INVALID', `${where}: "base" is for an adapter init, and ${dir} is not one (it has no ${ADAPTER_CONFIG_FILE})`, { field: `${where}.base`, entrant: entrant.name });
    return { dir, modelDir: dir };
  }
  const { lora, baseModel } = await readAdapterFiles(dir);
  const configured = entrant.base === undefined ? undefined : resolveModelDir(entrant.base, config.task);
  const base = configured ?? baseModel ?? fail('ADAPTER_BASE_MISMATCH', `entrant "${entrant.name}": ${join(dir, ADAPTER_CONFIG_FILE)} records no base_model_name_or_path; give the base directory as "base"`, { entrant: entrant.name, dir });
  if (configured !== undefined && baseModel !== null && (await pathExists(baseModel)) && (await realpath(baseModel)) !== (await realpath(configured))) {
    fail('ADAPTER_BASE_MISMATCH', `entrant "${entrant.name}": the adapter in ${dir} was trained on ${baseModel}, not on its configured base ${configured}`, { entrant: entrant.name, recorded: baseModel, base: configured });
  }
  if (!(await pathExists(base))) fail('POLICY_INVALID', `entrant "${entrant.name}": its adapter's base ${base} does not exist (give the base directory as "base")`, { entrant: entrant.name, base });
  if (await isAdapterDir(base)) fail('ADAPTER_BASE_MISMATCH', `entrant "${entrant.name}": its adapter's base ${base} is itself an adapter; a base is a full model`, { entrant: entrant.name, base });
  return { dir, modelDir: base, adapter: { base, lora } };
}

async function readModelConfig(entrant: string, dir: string): Promise<ModelConfig> {
  if (!(await pathExists(dir))) fail('POLICY_INVALID', `entrant "${entrant}": ${dir} does not exist`, { entrant, dir });
  const file = join(dir, CONFIG_FILE);
  const text = await readFile(file, 'utf8').catch((error: unknown) =>
    isMissingFileError(error) ? fail('POLICY_INVALID', `entrant "${entrant}": ${dir} holds no ${CONFIG_FILE} (is it a model directory?)`, { entrant, dir }) : Promise.reject(error),
  );
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    fail('POLICY_INVALID', `entrant "${entrant}": ${file} is not valid JSON (${(error as Error).message})`, { entrant, file });
  }
  return parseHfConfig(raw, file);
}

/** A game an entrant cannot play: its context window does not hold the game's first turn (prompt and budget). */
function checkContext(entrant: string, model: ModelConfig, game: AnyGame, promptLengths: readonly number[], maxNewTokens: number): void {
  const budget = game.protocol.family === 'co-decoding' ? maxNewTokens : game.protocol.family === 'world' ? game.protocol.maxTokens : game.protocol.turns[0].maxTokens;
  const longest = Math.max(...promptLengths);
  if (longest + budget > model.maxPositionEmbeddings) {
    fail('POLICY_INVALID', `entrant "${entrant}" cannot play game "${game.id}": a prompt of ${longest} tokens and a turn of ${budget} exceed its ${model.maxPositionEmbeddings} positions`, {
      entrant,
      game: game.id,
    });
  }
}
