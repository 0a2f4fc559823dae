import 'reflect-metadata';
import { Container, type ContainerModule } from 'inversify';
import { advantageEstimatorsModule } from './advantage-estimators-module.ts';
import { gamesModule } from './games-module.ts';
import { gradersModule } from './graders-module.ts';
import { PluginCatalog } from './plugin-catalog.ts';
import { protocolsModule } from './protocols-module.ts';
import { rewardRulesModule } from './reward-rules-module.ts';
import { rotationsModule } from './rotations-module.ts';

export const BUILT_IN_MODULES: readonly ContainerModule[] = [gamesModule, advantageEstimatorsModule, protocolsModule, rewardRulesModule, rotationsModule, gradersModule];

/** The composition root: loads the plugin modules (built-in ones and any extra) and hands back their catalog. */
export async function composePlugins(extra: readonly ContainerModule[] = []): Promise<PluginCatalog> {
  const container = new Container();
  for (const module of [...BUILT_IN_MODULES, ...extra]) await container.load(module);
  container.bind(PluginCatalog).toSelf().inSingletonScope();
  return container.get(PluginCatalog);
}
