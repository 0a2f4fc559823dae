import { realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fail } from '../core/errors.ts';

/**
 * The directories a server may read model directories from, and the check that confines every path a request names
 * to them: the path is resolved (symlinks included) before it is compared, so neither `..` nor a link leads out.
 * A path outside every root is PATH_FORBIDDEN whether or not it exists, so a request cannot probe the disk.
 */
export class ConfinedPaths {
  private constructor(
    readonly roots: readonly string[],
    /** The flag that names the roots, and what the server may do there (for refusals). */
    private readonly flag: string,
    private readonly verb: string,
  ) {}

  /** Roots as given (each must exist; its own symlinks are resolved once, here). */
  static async of(roots: readonly string[], flag = '--allow-dir', verb = 'read'): Promise<ConfinedPaths> {
    const real: string[] = [];
    for (const root of roots) {
      real.push(await realpath(resolve(root)).catch(() => fail('FILE_NOT_FOUND', `${flag} ${root}: no such directory`, { dir: root })));
    }
    return new ConfinedPaths(real, flag, verb);
  }

  /**
   * The resolved path of `path`, which need not exist yet (a directory about to be written), when it lies inside a
   * root: its nearest existing ancestor is resolved, symlinks included. PATH_FORBIDDEN otherwise, existing or not.
   */
  async confineNew(path: string, field: string): Promise<string> {
    const lexical = resolve(path);
    if (!this.inside(lexical)) this.refuse(path, field);
    const rest: string[] = [];
    let existing = lexical;
    for (;;) {
      const real = await realpath(existing).catch(() => undefined);
      if (real !== undefined) {
        const target = join(real, ...rest);
        if (!this.inside(target)) this.refuse(path, field);
        return target;
      }
      rest.unshift(basename(existing));
      existing = dirname(existing);
    }
  }

  /** The real path of `path` when it lies inside a root; PATH_FORBIDDEN when it does not, FILE_NOT_FOUND inside one when absent. */
  async confine(path: string, field: string): Promise<string> {
    const lexical = resolve(path);
    if (!this.inside(lexical)) this.refuse(path, field);
    const real = await realpath(lexical).catch(() => fail('FILE_NOT_FOUND', `${field}: ${path}: no such directory`, { field }));
    if (!this.inside(real)) this.refuse(path, field);
    return real;
  }

  private inside(path: string): boolean {
    return this.roots.some((root) => within(root, path));
  }

  private refuse(path: string, field: string): never {
    const where = this.roots.length === 0 ? `no directory is allowed (start the server with ${this.flag} DIR)` : `allowed: ${this.roots.join(', ')}; more with ${this.flag}`;
    return fail('PATH_FORBIDDEN', `${field}: ${path} is outside the directories this server may ${this.verb} (${where})`, { field });
  }
}

/** Whether `path` is `root` or lies below it (both absolute and resolved). */
export function within(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}
