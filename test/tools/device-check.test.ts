import { execFile } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCRIPT = join(ROOT, 'tools', 'device-check.sh');

describe('tools/device-check.sh', () => {
  describe('pack, then verify', () => {
    it("should bundle Node, the production node_modules and the Vulkan loader, and run `ludus --version` and a score from the unpacked bundle alone", { timeout: 600_000 }, async () => {
      const out = await mkdtemp(join(tmpdir(), 'ludus-device-bundle-'));
      const { stdout: packed } = await run('bash', [SCRIPT, 'pack', '--fast', '--out', out], { cwd: ROOT, maxBuffer: 16 << 20 });
      const bundle = packed.trim().split('\n').pop()!;
      expect(bundle).toBe(join(out, 'bundle.tar.gz'));
      const { stdout: listing } = await run('tar', ['-tzf', bundle], { maxBuffer: 256 << 20 });
      const files = listing.split('\n');
      expect(files).toContain('./node/bin/node');
      expect(files).toContain('./node_modules/onnxruntime-node/bin/napi-v6/linux/x64/libonnxruntime.so.1');
      expect(files).toContain('./node_modules/tsx/package.json');
      expect(files.some((f) => f.startsWith('./vulkan/libvulkan.so.1'))).toBe(true);
      // Only the device's platform of onnxruntime-node's libraries, and no development dependency.
      expect(files.filter((f) => /napi-v6\/(darwin|win32)\//.test(f) || f.includes('/linux/arm64/'))).toEqual([]);
      expect(files.filter((f) => f.startsWith('./node_modules/vitest/') || f.startsWith('./node_modules/typescript/'))).toEqual([]);

      const device = await mkdtemp(join(tmpdir(), 'ludus-device-'));
      const { stdout } = await run('bash', [SCRIPT, 'verify', device, out], { cwd: ROOT, maxBuffer: 16 << 20 });
      const { version } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string };
      const [printed, scored] = stdout.trim().split('\n');
      expect(printed).toBe(version);
      expect(JSON.parse(scored).logprobs).toHaveLength(3);
    });
  });

  describe('having an unknown verb', () => {
    it('should print its usage and exit 2', async () => {
      await expect(run('bash', [SCRIPT, 'launch'])).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('usage: tools/device-check.sh pack') });
    });
  });
});
