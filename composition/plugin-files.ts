import { ContainerModule } from 'inversify';
import { existsSync } from 'node:fs';
import { register as registerHooks } from 'node:module';
import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import semver from 'semver';
import { LudusError, fail } from '../core/errors.ts';
import { PLUGIN_KINDS, type LudusPlugin } from '../core/plugin-module.ts';
import { packageRoot, siblingModule } from '../native/io/package-root.ts';
import { LUDUS_VERSION } from '../native/io/version.ts';
import { pluginContainerModule } from './compose.ts';

/**
 * A user's plugin module from a file (TypeScript or JavaScript): its default export, a `definePlugin({...})` object
 * or an inversify ContainerModule. A file that does not load, throws while loading, exports something else, or asks
 * for another ludus version is a coded error naming the file.
 */
export async function loadPluginFile(file: string): Promise<ContainerModule> {
  const path = resolve(file);
  const found = await stat(path).catch(() => undefined);
  if (!found?.isFile()) fail('PLUGIN_LOAD_FAILED', `plugin ${file}: no such file`, { file });
  let module: { default?: unknown };
  try {
    if (/\.[cm]?ts$/.test(path)) await typeScriptLoader();
    module = (await import(pathToFileURL(path).href)) as { default?: unknown };
  } catch (error) {
    throw new LudusError('PLUGIN_LOAD_FAILED', `plugin ${file}: loading it failed: ${LudusError.is(error) ? error.message : (error as Error)?.message ?? String(error)}`, { file });
  }
  const exported = module.default;
  if (exported instanceof ContainerModule) return exported;
  return pluginContainerModule(checkPlugin(exported, file), `${(exported as LudusPlugin).name} (${file})`);
}

/** TypeScript plugin files load through tsx, registered once (already, when ludus itself runs from its sources). */
async function typeScriptLoader(): Promise<void> {
  const flags = globalThis as { __ludusTypeScript?: boolean };
  if (flags.__ludusTypeScript) return;
  const { register } = await import('tsx/esm/api');
  // ludus's own tsconfig where its checkout has one (decorators): a plugin importing ludus's TypeScript sources, as the
  // repository's examples do, fails without it when ludus runs from dist/; the installed package ships none, and tsx
  // then reads the plugin's nearest tsconfig as it always did.
  const root = packageRoot();
  const tsconfig = join(root, 'tsconfig.json');
  if (existsSync(tsconfig)) register({ tsconfig });
  else register();
  // The installed package ships its examples but not the sources they import (`../../index.ts`): that import goes to
  // the compiled entry (registered after tsx, so asked first).
  const [sourceEntry, compiledEntry] = [join(root, 'index.ts'), join(root, 'dist', 'index.js')];
  if (!existsSync(sourceEntry) && existsSync(compiledEntry)) {
    registerHooks(siblingModule(import.meta.url, 'source-entry-hooks'), { data: { sourceEntry: pathToFileURL(sourceEntry).href, compiledEntry: pathToFileURL(compiledEntry).href } });
  }
  flags.__ludusTypeScript = true;
}

function checkPlugin(value: unknown, file: string): LudusPlugin {
  const invalid = (why: string): never => fail('PLUGIN_INVALID', `plugin ${file}: ${why}`, { file });
  if (typeof value !== 'object' || value === null) invalid('its default export must be definePlugin({ name, games, ... }) or an inversify ContainerModule');
  const plugin = value as Record<string, unknown>;
  if (typeof plugin.name !== 'string' || plugin.name.length === 0) invalid('needs a non-empty "name"');
  const known = new Set<string>(['name', 'ludus', ...PLUGIN_KINDS]);
  for (const key of Object.keys(plugin)) if (!known.has(key)) invalid(`unknown key "${key}" (known: ${[...known].join(', ')})`);
  for (const kind of PLUGIN_KINDS) {
    const pieces = plugin[kind];
    if (pieces === undefined) continue;
    if (!Array.isArray(pieces)) invalid(`"${kind}" must be a list of { name, create } plugins`);
    (pieces as unknown[]).forEach((piece, i) => {
      const p = piece as { name?: unknown; create?: unknown } | null;
      if (typeof p?.name !== 'string' || p.name.length === 0 || typeof p.create !== 'function') invalid(`${kind}[${i}] must be { name: string, create: (options) => … }`);
    });
  }
  if (plugin.ludus !== undefined) {
    if (typeof plugin.ludus !== 'string' || semver.validRange(plugin.ludus) === null) invalid(`"ludus" must be a semver range, got ${JSON.stringify(plugin.ludus)}`);
    if (!semver.satisfies(LUDUS_VERSION, plugin.ludus as string)) invalid(`works with ludus ${plugin.ludus as string}, this is ${LUDUS_VERSION}`);
  }
  return plugin as unknown as LudusPlugin;
}

/** The catalog's extra modules for `--plugin` files and a config's `plugins`, in that order, each file once. */
export async function loadPluginFiles(files: readonly string[]): Promise<ContainerModule[]> {
  const unique = [...new Set(files.map((file) => resolve(file)))];
  return Promise.all(unique.map((file) => loadPluginFile(file)));
}
