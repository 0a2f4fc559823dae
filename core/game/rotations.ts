import { fail } from '../errors.ts';

/** Who plays what at one optimizer step: `seats[i]` is the role policy i plays; `trains` are the roles updated. */
export interface RotationStep<Role extends string> {
  readonly seats: readonly Role[];
  readonly trains: readonly Role[];
}

/** A named rotation: a pure function of the optimizer step that repeats every `period` steps. */
export interface Rotation<Role extends string> {
  readonly name: string;
  readonly period: number;
  readonly at: (step: number) => RotationStep<Role>;
}

/** The same seats every step; `trains` defaults to every seat (tandem: seats [senior, junior], trains [senior]). */
function fixed<Role extends string>(seats: readonly Role[], trains: readonly Role[] = seats): Rotation<Role> {
  const step: RotationStep<Role> = { seats: [...seats], trains: [...trains] };
  return { name: 'fixed', period: 1, at: () => step };
}

/** Policies move one seat on at every optimizer step, all trained (Agon: drafter and challenger swap every step). */
function alternateEveryStep<Role extends string>(seats: readonly Role[]): Rotation<Role> {
  const n = seats.length;
  return {
    name: 'alternate-every-step',
    period: n,
    at: (step) => ({ seats: seats.map((_, policy) => seats[(policy + nonNegative(step)) % n]), trains: [...seats] }),
  };
}

/**
 * Tango's interleaving: train the first role for its `steps`, then the next, and repeat (N_g:N_v). Seats never move.
 */
function interleave<Role extends string>(phases: readonly { role: Role; steps: number }[]): Rotation<Role> {
  if (phases.length === 0) fail('CONFIG_INVALID', 'interleave: needs at least one phase');
  for (const { role, steps } of phases) {
    if (!(Number.isInteger(steps) && steps > 0)) fail('CONFIG_INVALID', `interleave: role "${role}" needs a positive whole number of steps, got ${steps}`);
  }
  const seats = [...new Set(phases.map((phase) => phase.role))];
  const period = phases.reduce((sum, phase) => sum + phase.steps, 0);
  const trainerAt = phases.flatMap((phase) => new Array<Role>(phase.steps).fill(phase.role));
  return {
    name: `interleave(${phases.map((phase) => `${phase.role}:${phase.steps}`).join(',')})`,
    period,
    at: (step) => ({ seats, trains: [trainerAt[nonNegative(step) % period]] }),
  };
}

function nonNegative(step: number): number {
  if (!(Number.isInteger(step) && step >= 0)) fail('INPUT_INVALID', `rotation: optimizer step must be a whole number ≥ 0, got ${step}`);
  return step;
}

export const Rotations = { fixed, alternateEveryStep, interleave } as const;
