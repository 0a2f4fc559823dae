import type { z } from 'zod';
import { parseConfig } from '../../core/parse-config.ts';
import type { AnyWorld, ScriptedPlayer } from '../../core/world/world.ts';
import { PretrainConfigSchema, worldGamePreset } from './pretrain-config.ts';
import { pretrain, type PretrainRun } from './pretrain.ts';

export interface WorldBaseRun extends Omit<PretrainRun, 'config' | 'worlds'> {
  readonly world: AnyWorld;
  /** Its reference opponents, for a `teacher` in `config.taskOptions`. */
  // biome-ignore lint/suspicious/noExplicitAny: scripted players play the world's own state and move types.
  readonly scripted?: Readonly<Record<string, ScriptedPlayer<any, any, any>>>;
  /** Fields laid over the game's preset (worldGamePreset): steps, lr, a teacher, … */
  readonly config?: Partial<z.input<typeof PretrainConfigSchema>>;
}

/**
 * A base of a world's own from the package API, as `ludus pretrain --plugin FILE --game NAME` makes one: the general
 * world base trained further on the world's positions (worldGamePreset). Returns the model directory.
 */
export async function pretrainWorldBase(run: WorldBaseRun): Promise<{ modelDir: string; steps: number }> {
  const { world, scripted, config, ...rest } = run;
  const parsed = parseConfig(PretrainConfigSchema, { ...worldGamePreset(world.id), ...config }, `pretrain config of ${world.id}`);
  return pretrain({ ...rest, config: parsed, worlds: { [world.id]: { world, ...(scripted ? { scripted } : {}) } } });
}
