import { describe, expect, it } from 'vitest';
import { readGpuEnvironment, webgpuMissing, type GpuEnvironment } from '../../native/gpu-environment.ts';

const linux = (overrides: Partial<GpuEnvironment>): GpuEnvironment => ({
  platform: 'linux',
  vulkanLoader: '/usr/lib/x86_64-linux-gnu/libvulkan.so.1',
  icdManifests: ['/usr/share/vulkan/icd.d/nvidia_icd.json'],
  gpuDevices: ['/dev/nvidia0'],
  unlistedNvidiaIcds: [],
  ...overrides,
});

describe('webgpuMissing', () => {
  describe('having a GPU, the Vulkan loader and a hardware driver manifest', () => {
    it('should name nothing missing', () => {
      expect(webgpuMissing(linux({}))).toEqual([]);
    });
  });

  describe('having no Vulkan loader', () => {
    it('should say to install libvulkan1', () => {
      const [missing] = webgpuMissing(linux({ vulkanLoader: null }));
      expect(missing).toContain('libvulkan.so.1');
      expect(missing).toContain('libvulkan1');
    });
  });

  describe("having only Mesa's lavapipe", () => {
    it('should say that a software rasterizer is refused', () => {
      const missing = webgpuMissing(linux({ icdManifests: ['/usr/share/vulkan/icd.d/lvp_icd.x86_64.json'] }));
      expect(missing).toHaveLength(1);
      expect(missing[0]).toContain('software rasterizer');
    });
  });

  describe("having NVIDIA's manifest only in the driver's own folder", () => {
    it('should say how to point the loader at it', () => {
      const icd = '/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json';
      const [missing] = webgpuMissing(linux({ icdManifests: [], unlistedNvidiaIcds: [icd] }));
      expect(missing).toContain(`export VK_DRIVER_FILES=${icd}`);
    });
  });

  describe('having no GPU device file', () => {
    it('should say so first', () => {
      expect(webgpuMissing(linux({ gpuDevices: [] }))[0]).toContain('/dev/nvidia');
    });
  });
});

describe('readGpuEnvironment', () => {
  describe('having VK_DRIVER_FILES naming a manifest that does not exist', () => {
    it('should list no manifest', () => {
      expect(readGpuEnvironment({ VK_DRIVER_FILES: '/nonexistent/icd.json' }, 'linux').icdManifests).toEqual([]);
    });
  });

  describe('having LD_LIBRARY_PATH naming a folder with libvulkan.so.1', () => {
    it('should find the loader there', async () => {
      const { mkdtemp, writeFile } = await import('node:fs/promises');
      const { tmpdir } = await import('node:os');
      const { join } = await import('node:path');
      const dir = await mkdtemp(join(tmpdir(), 'ludus-vulkan-'));
      await writeFile(join(dir, 'libvulkan.so.1'), '');
      expect(readGpuEnvironment({ LD_LIBRARY_PATH: dir }, 'linux').vulkanLoader).toBe(join(dir, 'libvulkan.so.1'));
    });
  });
});
