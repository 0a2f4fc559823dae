import type { RotationOptions } from '../../core/catalog.ts';
import { fail } from '../../core/errors.ts';
import { Rotations, type Rotation } from '../../core/game/rotations.ts';
import type { Plugin } from '../../core/plugin.ts';

export type RotationPlugin = Plugin<Rotation<string>, RotationOptions>;

/** `roles[i]` seated by `policies[i]` (default: the role's own name); a role listed twice is refused. */
function seatsOf(name: string, options: RotationOptions): Record<string, string> {
  const policies = options.policies ?? options.roles;
  if (policies.length !== options.roles.length) fail('CONFIG_INVALID', `rotation "${name}": ${options.roles.length} roles but ${policies.length} policies`, { rotation: name });
  const seats: Record<string, string> = {};
  options.roles.forEach((role, i) => {
    if (role in seats) fail('CONFIG_INVALID', `rotation "${name}" seats role "${role}" twice`, { rotation: name, role });
    seats[role] = policies[i];
  });
  return seats;
}

function withWarmup(rotation: Rotation<string>, options: RotationOptions): Rotation<string> {
  return options.warmupSteps ? Rotations.warmup({ steps: options.warmupSteps, trains: options.warmupTrains ?? [] }, rotation) : rotation;
}

export const ROTATION_PLUGINS: readonly RotationPlugin[] = [
  { name: 'fixed', create: (options) => withWarmup(Rotations.fixed(seatsOf('fixed', options), options.trains), options) },
  {
    name: 'alternate-every-step',
    create: (options) => {
      const seats = seatsOf('alternate-every-step', options);
      return withWarmup(Rotations.alternateEveryStep(Object.keys(seats), Object.values(seats)), options);
    },
  },
  {
    name: 'interleave',
    create: (options) => {
      const seats = seatsOf('interleave', options);
      return withWarmup(Rotations.interleave(seats, options.phases ?? Object.values(seats).map((policy) => ({ policy, steps: 1 }))), options);
    },
  },
];
