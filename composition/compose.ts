import 'reflect-metadata';
import { Container, ContainerModule } from 'inversify';
import { PLUGIN_KINDS, type LudusPlugin } from '../core/plugin-module.ts';
import { builtInGames } from '../games/index.ts';
import { builtInPieces } from '../plugins/built-in.ts';
import { PluginCatalog } from './plugin-catalog.ts';
import { PLUGIN_TOKENS } from './tokens.ts';

/** ludus's own plugin modules: the swappable pieces and the papers' games. */
export const BUILT_IN_PLUGINS: readonly LudusPlugin[] = [builtInPieces, builtInGames];

/** One ContainerModule per plugin module: each piece bound under its kind's token, tagged with where it came from. */
export function pluginContainerModule(plugin: LudusPlugin, source: string = plugin.name): ContainerModule {
  return new ContainerModule(({ bind }) => {
    for (const kind of PLUGIN_KINDS) {
      for (const piece of plugin[kind] ?? []) bind(PLUGIN_TOKENS[kind]).toConstantValue({ ...piece, source });
    }
  });
}

/**
 * The composition root: loads the built-in plugin modules and any extra ones (a user's plugin modules, or raw
 * inversify ContainerModules binding to the same tokens) and hands back their catalog. Names clash across all of them.
 */
export async function composePlugins(extra: readonly (LudusPlugin | ContainerModule)[] = []): Promise<PluginCatalog> {
  const container = new Container();
  for (const plugin of [...BUILT_IN_PLUGINS, ...extra]) await container.load(plugin instanceof ContainerModule ? plugin : pluginContainerModule(plugin));
  container.bind(PluginCatalog).toSelf().inSingletonScope();
  return container.get(PluginCatalog);
}
