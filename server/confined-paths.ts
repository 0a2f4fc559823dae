import { readdir, readFile, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fail } from '../core/errors.ts';
import { ADAPTER_CONFIG_FILE } from '../native/io/adapter.ts';
import { CONFIG_FILE } from '../native/io/checkpoint.ts';
import { DEFAULT_MODELS_DIR } from '../plugins/policies/default-model.ts';

/** Adapters over adapters are followed this deep at most (ours: a PEFT adapter sits on a full model). */
const MAX_ADAPTER_DEPTH = 4;

/** Entries a model directory may hold at most (ours: a sharded checkpoint has tens; each entry is resolved before a load). */
const MAX_MODEL_ENTRIES = 4096;

/**
 * The directories a server may read model directories from, and the check that confines every path a request names
 * to them: the path is resolved (symlinks included) before it is compared, so neither `..` nor a link leads out.
 * A path outside every root is PATH_FORBIDDEN whether or not it exists, so a request cannot probe the disk: the
 * lexical path is compared before the disk is asked anything, and an absent path is judged by the nearest
 * directory above it that exists (an absent name under a link that leads out is outside too).
 *
 * A model directory is confined with every file in it (each a link, perhaps) and, for a PEFT adapter, the base its
 * adapter_config.json names, since a load opens all of those. The check runs before the load, not inside it (the
 * loaders, in this process or a worker's, open files by path): a root that someone untrusted can write to between
 * the two is out of its reach.
 */
export class ConfinedPaths {
  private constructor(
    readonly roots: readonly string[],
    /** The flag that names the roots, and what the server may do there (for refusals). */
    private readonly flag: string,
    private readonly verb: string,
  ) {}

  /**
   * Roots as given (each must exist; its own symlinks are resolved once, here). Read roots (`--allow-dir`) hold the
   * shipped bases' folder too; write roots (`--write-dir`) only what is named.
   */
  static async of(roots: readonly string[], flag = '--allow-dir', verb = 'read'): Promise<ConfinedPaths> {
    const real: string[] = [];
    for (const root of verb === 'read' ? [...roots, DEFAULT_MODELS_DIR] : roots) {
      real.push(await realpath(resolve(root)).catch(() => fail('FILE_NOT_FOUND', `${flag} ${root}: no such directory`, { dir: root })));
    }
    return new ConfinedPaths(real, flag, verb);
  }

  /**
   * The resolved path of `path`, which need not exist yet (a directory about to be written), when it lies inside a
   * root: it, or the nearest directory above it that exists, resolved (symlinks included). PATH_FORBIDDEN otherwise,
   * existing or not.
   */
  async confineNew(path: string, field: string): Promise<string> {
    const lexical = resolve(path);
    if (!this.inside(lexical)) this.refuse(path, field);
    const real = (await realpath(lexical).catch(() => undefined)) ?? (await nearestReal(lexical));
    if (!this.inside(real)) this.refuse(path, field);
    return real;
  }

  /** The real path of `path` when it lies inside a root; PATH_FORBIDDEN when it does not, FILE_NOT_FOUND inside one when absent (`shown` names it in both). */
  async confine(path: string, field: string, shown = path): Promise<string> {
    const lexical = resolve(path);
    if (!this.inside(lexical)) this.refuse(shown, field);
    const real = await realpath(lexical).catch(async () => {
      if (!this.inside(await nearestReal(lexical))) this.refuse(shown, field);
      return fail('FILE_NOT_FOUND', `${field}: ${shown}: no such directory`, { field });
    });
    if (!this.inside(real)) this.refuse(shown, field);
    return real;
  }

  /**
   * The real path of a model directory `path` names, once it, every entry in it, and (for a PEFT adapter) the base
   * its adapter_config.json names are inside the roots. A link in it that leads nowhere is refused as one that leads
   * out (the two would otherwise tell apart whether its target exists).
   */
  async confineModel(path: string, field: string): Promise<string> {
    return this.confineModelAt(path, field, path, 0);
  }

  private async confineModelAt(path: string, field: string, shown: string, depth: number): Promise<string> {
    const dir = await this.confine(path, field, shown);
    const entries = await readdir(dir).catch(() => fail('FILE_NOT_FOUND', `${field}: ${shown}: not a directory`, { field }));
    if (entries.length > MAX_MODEL_ENTRIES) fail('REQUEST_INVALID', `${field}: ${shown}: ${entries.length} entries, more than a model directory holds (${MAX_MODEL_ENTRIES})`, { field });
    for (const entry of entries) {
      const real = await realpath(join(dir, entry)).catch(() => undefined);
      if (real === undefined || !this.inside(real)) {
        fail('PATH_FORBIDDEN', `${field}: ${shown}: its entry "${entry}" leads outside the directories this server may read, or nowhere (${this.allowed()})`, { field });
      }
    }
    if (entries.includes(CONFIG_FILE) || !entries.includes(ADAPTER_CONFIG_FILE)) return dir;
    const base = await adapterBase(join(dir, ADAPTER_CONFIG_FILE));
    if (base === undefined) return dir;
    if (depth >= MAX_ADAPTER_DEPTH) fail('PATH_FORBIDDEN', `${field}: ${shown}: adapters sit on adapters more than ${MAX_ADAPTER_DEPTH} deep`, { field });
    // Relative to the working directory, as the loader reads it.
    await this.confineModelAt(base, field, `the base_model_name_or_path of ${shown}`, depth + 1);
    return dir;
  }

  private inside(path: string): boolean {
    return this.roots.some((root) => within(root, path));
  }

  private allowed(): string {
    return this.roots.length === 0 ? `no directory is allowed: start the server with ${this.flag} DIR` : `allowed: ${this.roots.join(', ')}; more with ${this.flag}`;
  }

  private refuse(path: string, field: string): never {
    return fail('PATH_FORBIDDEN', `${field}: ${path} is outside the directories this server may ${this.verb} (${this.allowed()})`, { field });
  }
}

/** Whether `path` is `root` or lies below it (both absolute and resolved). */
export function within(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** The real path of the nearest directory above `path` (absolute) that resolves, joined with the rest of `path`. */
async function nearestReal(path: string): Promise<string> {
  const parent = dirname(path);
  if (parent === path) return path;
  const real = await realpath(parent).catch(() => undefined);
  return join(real ?? (await nearestReal(parent)), relative(parent, path));
}

/** The base an adapter_config.json names (undefined when it names none, or is not JSON: the load says so without quoting it). */
async function adapterBase(file: string): Promise<string | undefined> {
  try {
    const base = (JSON.parse(await readFile(file, 'utf8')) as { base_model_name_or_path?: unknown } | null)?.base_model_name_or_path;
    return typeof base === 'string' && base !== '' ? base : undefined;
  } catch {
    return undefined;
  }
}
