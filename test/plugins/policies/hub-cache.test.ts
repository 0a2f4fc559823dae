import { createHash } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readFile, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hubCacheDir, resolveHubModel } from '../../../plugins/policies/hub-cache.ts';
import { resolveModelDir } from '../../../plugins/policies/default-model.ts';
import { loadPolicy } from '../../../plugins/policies/load-policy.ts';
import { rejection } from '../../support/errors.ts';

const SHIPPED = resolveModelDir('default');
const FILES = ['config.json', 'model.safetensors', 'tokenizer.json'];

/**
 * A cache laid out as huggingface_hub writes it: the files as blobs named by their hash, the snapshot of a commit as
 * symlinks to them, and refs/main naming the commit.
 */
async function hubCache(repo: string, commit = 'a1b2c3d4e5f6'): Promise<string> {
  const cache = await mkdtemp(join(tmpdir(), 'ludus-hub-'));
  const repoDir = join(cache, `models--${repo.replaceAll('/', '--')}`);
  await mkdir(join(repoDir, 'blobs'), { recursive: true });
  await mkdir(join(repoDir, 'snapshots', commit), { recursive: true });
  await mkdir(join(repoDir, 'refs'), { recursive: true });
  for (const file of FILES) {
    const blob = createHash('sha256').update(await readFile(join(SHIPPED, file))).digest('hex');
    await copyFile(join(SHIPPED, file), join(repoDir, 'blobs', blob));
    await symlink(join('..', '..', 'blobs', blob), join(repoDir, 'snapshots', commit, file));
  }
  await writeFile(join(repoDir, 'refs', 'main'), commit);
  return cache;
}

const saved = { HF_HUB_CACHE: process.env.HF_HUB_CACHE, HF_HOME: process.env.HF_HOME };
afterEach(() => {
  for (const [key, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
});

describe('hubCacheDir', () => {
  it('should follow HF_HUB_CACHE, then HF_HOME/hub, then XDG_CACHE_HOME, then ~/.cache, as huggingface_hub does', () => {
    expect(hubCacheDir({ HF_HUB_CACHE: '/a', HF_HOME: '/b' })).toBe('/a');
    expect(hubCacheDir({ HF_HOME: '/b' })).toBe('/b/hub');
    expect(hubCacheDir({ XDG_CACHE_HOME: '/c' })).toBe('/c/huggingface/hub');
    expect(hubCacheDir({})).toMatch(/\/\.cache\/huggingface\/hub$/);
  });
});

describe('a model named by hub id', () => {
  describe('having it in a cache laid out as Hugging Face lays it out', () => {
    it('should resolve to the snapshot refs/main names and load from it (HF_HUB_CACHE)', async () => {
      const cache = await hubCache('tiny-org/tiny-qwen');
      process.env.HF_HUB_CACHE = cache;
      const dir = resolveModelDir('tiny-org/tiny-qwen');
      expect(dir).toBe(join(cache, 'models--tiny-org--tiny-qwen', 'snapshots', 'a1b2c3d4e5f6'));
      const { policy, tokenizer } = await loadPolicy(dir);
      const shipped = await loadPolicy(SHIPPED);
      expect(policy.config).toEqual(shipped.policy.config);
      expect(tokenizer?.hash).toBe(shipped.tokenizer?.hash);
    });

    it('should find it under HF_HOME/hub, and by an explicit revision', async () => {
      const home = await mkdtemp(join(tmpdir(), 'ludus-hf-home-'));
      const cache = await hubCache('tiny-qwen', 'feedbeef');
      await symlink(cache, join(home, 'hub'));
      delete process.env.HF_HUB_CACHE;
      process.env.HF_HOME = home;
      expect(resolveModelDir('tiny-qwen')).toBe(join(home, 'hub', 'models--tiny-qwen', 'snapshots', 'feedbeef'));
      expect(resolveHubModel('tiny-qwen@feedbeef')).toBe(join(home, 'hub', 'models--tiny-qwen', 'snapshots', 'feedbeef'));
    });
  });

  describe('having it absent from the cache', () => {
    it('should fail with MODEL_NOT_FOUND naming the id, the cache and how to fill it', async () => {
      const cache = await hubCache('tiny-org/tiny-qwen');
      process.env.HF_HUB_CACHE = cache;
      const error = await rejection(Promise.resolve().then(() => resolveModelDir('Qwen/Qwen3-0.6B')));
      expect(error.code).toBe('MODEL_NOT_FOUND');
      expect(error.message).toContain(`model "Qwen/Qwen3-0.6B": not a directory, and ${join(cache, 'models--Qwen--Qwen3-0.6B')} is not in the Hugging Face cache ${cache}`);
      expect(error.message).toContain('huggingface-cli download Qwen/Qwen3-0.6B');
      const revision = await rejection(Promise.resolve().then(() => resolveHubModel('tiny-org/tiny-qwen@v2')));
      expect(revision.message).toContain('revision "v2" is not');
      expect(revision.message).toContain('snapshots held: a1b2c3d4e5f6');
    });
  });

  describe('having a path', () => {
    it('should leave an absolute or dotted path alone, present or not', () => {
      expect(resolveModelDir('/nowhere/model')).toBe('/nowhere/model');
      expect(resolveModelDir('./model')).toBe('./model');
    });
  });
});
