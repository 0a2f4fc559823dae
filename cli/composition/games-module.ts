import { ContainerModule } from 'inversify';
import { RL_GAME_PLUGINS } from '../../games/registry.ts';
import { GAME_PLUGIN } from './tokens.ts';

/** tandem, grpo and kl-reg. */
export const gamesModule = new ContainerModule(({ bind }) => {
  for (const plugin of RL_GAME_PLUGINS) bind(GAME_PLUGIN).toConstantValue(plugin);
});
