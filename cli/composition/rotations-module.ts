import { ContainerModule } from 'inversify';
import { Rotations, type Rotation } from '../../core/game/rotations.ts';
import type { Plugin } from '../../core/plugin.ts';
import { ROTATION_PLUGIN } from './tokens.ts';

export interface RotationOptions {
  /** `seats[i]` is the role policy i plays. */
  readonly seats: readonly string[];
  /** `fixed`: the roles updated (default every seat). */
  readonly trains?: readonly string[];
  /** `interleave`: train each role for its steps in turn (Tango's N_g:N_v). */
  readonly phases?: readonly { role: string; steps: number }[];
}

export type RotationPlugin = Plugin<Rotation<string>, RotationOptions>;

export const ROTATION_PLUGINS: readonly RotationPlugin[] = [
  { name: 'fixed', create: ({ seats, trains }) => Rotations.fixed(seats, trains) },
  { name: 'alternate-every-step', create: ({ seats }) => Rotations.alternateEveryStep(seats) },
  { name: 'interleave', create: ({ seats, phases }) => Rotations.interleave(phases ?? seats.map((role) => ({ role, steps: 1 }))) },
];

export const rotationsModule = new ContainerModule(({ bind }) => {
  for (const plugin of ROTATION_PLUGINS) bind(ROTATION_PLUGIN).toConstantValue(plugin);
});
