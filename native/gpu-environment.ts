import { existsSync, readdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/**
 * What a WebGPU adapter needs on this machine, read from the file system: on Linux Dawn reaches the GPU through
 * Vulkan, so it needs the Vulkan loader (libvulkan.so.1), an installable client driver (ICD) manifest that names a
 * hardware driver, and the GPU's device files. Each missing piece becomes one sentence of the DEVICE_UNAVAILABLE hint.
 */
export interface GpuEnvironment {
  platform: NodeJS.Platform;
  /** Where libvulkan.so.1 was found (Linux), or null. */
  vulkanLoader: string | null;
  /** ICD manifests the loader would read (VK_DRIVER_FILES / VK_ICD_FILENAMES, else the standard folders). */
  icdManifests: string[];
  /** Device files of a GPU: /dev/nvidia0, /dev/dri/renderD128, ... */
  gpuDevices: string[];
  /** ICD manifests of NVIDIA's driver outside the loader's search path (the driver's own folder), for the hint. */
  unlistedNvidiaIcds: string[];
}

const LIBRARY_FOLDERS = ['/lib/x86_64-linux-gnu', '/usr/lib/x86_64-linux-gnu', '/lib/aarch64-linux-gnu', '/usr/lib/aarch64-linux-gnu', '/lib64', '/usr/lib64', '/lib', '/usr/lib', '/usr/local/lib'];
const ICD_FOLDERS = ['/etc/vulkan/icd.d', '/usr/local/etc/vulkan/icd.d', '/usr/share/vulkan/icd.d', '/usr/local/share/vulkan/icd.d'];
/** Where NVIDIA's container toolkit and bare driver mounts put the ICD manifest without registering it. */
const NVIDIA_ICD_FOLDERS = ['/usr/local/nvidia/share/vulkan/icd.d', '/usr/local/nvidia/icd.d'];

const listing = (folder: string): string[] => {
  try {
    return readdirSync(folder).map((name) => join(folder, name));
  } catch {
    return [];
  }
};

export function readGpuEnvironment(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): GpuEnvironment {
  const libraryFolders = [...(env.LD_LIBRARY_PATH ?? '').split(delimiter).filter(Boolean), ...LIBRARY_FOLDERS];
  const vulkanLoader = platform === 'linux' ? (libraryFolders.map((folder) => join(folder, 'libvulkan.so.1')).find((path) => existsSync(path)) ?? null) : null;
  const named = (env.VK_DRIVER_FILES ?? env.VK_ICD_FILENAMES ?? '').split(delimiter).filter(Boolean);
  const icdManifests = named.length > 0 ? named.filter((path) => existsSync(path)) : ICD_FOLDERS.flatMap(listing).filter((path) => path.endsWith('.json'));
  const gpuDevices = [...listing('/dev').filter((path) => /\/nvidia\d+$/.test(path)), ...listing('/dev/dri').filter((path) => /renderD\d+$/.test(path))];
  const unlistedNvidiaIcds = NVIDIA_ICD_FOLDERS.flatMap(listing).filter((path) => path.endsWith('.json') && !icdManifests.includes(path));
  return { platform, vulkanLoader, icdManifests, gpuDevices, unlistedNvidiaIcds };
}

/** Mesa's software rasterizer (lavapipe) and other CPU drivers: Dawn refuses them as adapters. */
const isSoftwareIcd = (path: string): boolean => /lvp|lavapipe|swiftshader/i.test(path);

/** Says what is missing for a WebGPU adapter, most basic first; empty when nothing visible is. */
export function webgpuMissing(e: GpuEnvironment): string[] {
  if (e.platform === 'darwin') return ['a Metal GPU (Apple silicon or a Mac with a Metal-capable GPU)'];
  if (e.platform === 'win32') return ['a GPU with a Direct3D 12 driver'];
  const missing: string[] = [];
  if (e.gpuDevices.length === 0) missing.push('a GPU: no /dev/nvidia* or /dev/dri/renderD* device file');
  if (!e.vulkanLoader) missing.push('the Vulkan loader libvulkan.so.1 (Debian/Ubuntu: apt-get install libvulkan1, or put its folder on LD_LIBRARY_PATH)');
  const hardware = e.icdManifests.filter((path) => !isSoftwareIcd(path));
  if (hardware.length === 0) {
    const found = e.icdManifests.length > 0 ? ` (only ${e.icdManifests.join(', ')}: a software rasterizer, which Dawn refuses)` : '';
    const nvidia = e.unlistedNvidiaIcds.length > 0 ? `; the NVIDIA driver's manifest is at ${e.unlistedNvidiaIcds[0]}: export VK_DRIVER_FILES=${e.unlistedNvidiaIcds[0]}` : '';
    missing.push(`a Vulkan driver manifest (ICD json) for a hardware GPU${found}${nvidia}`);
  }
  return missing;
}
