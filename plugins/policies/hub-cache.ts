import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fail } from '../../core/errors.ts';

/** A Hugging Face Hub model id: `name` or `org/name` (letters, digits, `-`, `_`, `.`), optionally `@revision`. */
const HUB_ID = /^(?:[A-Za-z0-9][\w.-]*\/)?[A-Za-z0-9][\w.-]*(?:@[\w.-]+)?$/;

/** Whether `model` reads as a hub id rather than a path (no leading `.` or `/`, at most one `/`). */
export function isHubId(model: string): boolean {
  return HUB_ID.test(model) && !model.startsWith('.') && !model.includes('..');
}

/**
 * The hub cache huggingface_hub and transformers write to, as they find it: HF_HUB_CACHE, else HF_HOME/hub, else
 * XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub.
 */
export function hubCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.HF_HUB_CACHE) return env.HF_HUB_CACHE;
  if (env.HF_HOME) return join(env.HF_HOME, 'hub');
  return join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'huggingface', 'hub');
}

/**
 * A model named by hub id, from the local cache laid out as huggingface_hub lays it out, offline as transformers does
 * with HF_HUB_OFFLINE=1: `<cache>/models--org--name/snapshots/<commit>/`, the commit read from `refs/<revision>`
 * (`main` unless `id@revision` names another; a revision may also be a commit hash). MODEL_NOT_FOUND, saying where
 * it looked and how to fill the cache, when it is not there.
 */
export function resolveHubModel(id: string, env: NodeJS.ProcessEnv = process.env): string {
  const [repo, revision = 'main'] = id.split('@');
  const cache = hubCacheDir(env);
  const repoDir = join(cache, `models--${repo.replaceAll('/', '--')}`);
  const missing = (why: string): never =>
    fail(
      'MODEL_NOT_FOUND',
      `model "${id}": not a directory, and ${why} in the Hugging Face cache ${cache} (set HF_HUB_CACHE or HF_HOME to use another); fetch it where there is a network with \`huggingface-cli download ${repo}${revision === 'main' ? '' : ` --revision ${revision}`}\` and copy the cache, or give the model's directory`,
      { model: id, cache, dir: repoDir },
    );
  if (!existsSync(repoDir)) missing(`${repoDir} is not`);
  const ref = join(repoDir, 'refs', revision);
  const commit = existsSync(ref) ? readFileSync(ref, 'utf8').trim() : revision;
  const snapshot = join(repoDir, 'snapshots', commit);
  if (!existsSync(snapshot)) {
    const held = existsSync(join(repoDir, 'snapshots')) ? readdirSync(join(repoDir, 'snapshots')) : [];
    missing(`revision "${revision}" is not (${ref} ${existsSync(ref) ? `names ${commit}, which has no snapshot` : 'is missing'}; snapshots held: ${held.join(', ') || 'none'})`);
  }
  if (!existsSync(join(snapshot, 'config.json'))) missing(`its snapshot ${snapshot} has no config.json`);
  return snapshot;
}
