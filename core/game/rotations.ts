import { fail } from '../errors.ts';

/**
 * Who plays what at one optimizer step, as RLlib's policy mapping and policies-to-train: `seats[role]` is the policy
 * that plays the role (a policy may sit in several roles: self-play); `trains` are the policies updated after the
 * step, each from the tokens of the trainable roles it sat in.
 */
export interface RotationStep<Role extends string = string> {
  readonly seats: Readonly<Record<Role, string>>;
  readonly trains: readonly string[];
}

/**
 * A named rotation: a pure function of the optimizer step. From step `offset` on it repeats every `period` steps;
 * the steps before `offset` (a warm-up) need not repeat. Checking steps 0 … offset + period − 1 checks them all.
 */
export interface Rotation<Role extends string = string> {
  readonly name: string;
  readonly offset: number;
  readonly period: number;
  readonly at: (step: number) => RotationStep<Role>;
}

/** Every step whose seats a check must see: the warm-up and one period. */
export function distinctSteps(rotation: Pick<Rotation, 'offset' | 'period'>): number[] {
  return Array.from({ length: rotation.offset + rotation.period }, (_, step) => step);
}

/** The same seats every step; `trains` defaults to every seated policy (tandem: the senior only). */
function fixed<Role extends string>(seats: Readonly<Record<Role, string>>, trains: readonly string[] = distinct(Object.values<string>(seats))): Rotation<Role> {
  const step: RotationStep<Role> = { seats: { ...seats }, trains: [...trains] };
  return { name: 'fixed', offset: 0, period: 1, at: (n) => (nonNegative(n), step) };
}

/**
 * Policies move one role on at every optimizer step and all of them train (Agon: drafter and challenger swap every
 * step). At step s, role j is played by policy (j − s) mod n: at step 0 policy i plays role i.
 */
function alternateEveryStep<Role extends string>(roles: readonly Role[], policies: readonly string[] = roles): Rotation<Role> {
  const n = roles.length;
  if (n === 0 || policies.length !== n) fail('CONFIG_INVALID', `alternate-every-step: needs as many policies as roles, got ${policies.length} for ${n}`);
  return {
    name: 'alternate-every-step',
    offset: 0,
    period: n,
    at: (step) => {
      const s = nonNegative(step);
      return { seats: Object.fromEntries(roles.map((role, j) => [role, policies[(((j - s) % n) + n) % n]])) as Record<Role, string>, trains: [...policies] };
    },
  };
}

/** Tango's interleaving: train the first phase's policy for its `steps`, then the next, and repeat (N_g:N_v). Seats never move. */
function interleave<Role extends string>(seats: Readonly<Record<Role, string>>, phases: readonly { policy: string; steps: number }[]): Rotation<Role> {
  if (phases.length === 0) fail('CONFIG_INVALID', 'interleave: needs at least one phase');
  for (const { policy, steps } of phases) {
    if (!(Number.isInteger(steps) && steps > 0)) fail('CONFIG_INVALID', `interleave: policy "${policy}" needs a positive whole number of steps, got ${steps}`, { policy });
  }
  const period = phases.reduce((sum, phase) => sum + phase.steps, 0);
  const trainerAt = phases.flatMap((phase) => new Array<string>(phase.steps).fill(phase.policy));
  return {
    name: `interleave(${phases.map((phase) => `${phase.policy}:${phase.steps}`).join(',')})`,
    offset: 0,
    period,
    at: (step) => ({ seats: { ...seats }, trains: [trainerAt[nonNegative(step) % period]] }),
  };
}

/**
 * A warm-up before another rotation: for the first `steps` steps only `trains` learn, in the seats `then` gives at its
 * step 0 (Tango's verifier warm-up); afterwards `then` runs from its own step 0.
 */
function warmup<Role extends string>(first: { steps: number; trains: readonly string[] }, then: Rotation<Role>): Rotation<Role> {
  if (!(Number.isInteger(first.steps) && first.steps >= 0)) fail('CONFIG_INVALID', `warmup: steps must be a whole number ≥ 0, got ${first.steps}`);
  const seats = then.at(0).seats;
  return {
    name: `warmup(${first.steps}:${first.trains.join('+')})+${then.name}`,
    offset: first.steps + then.offset,
    period: then.period,
    at: (step) => (nonNegative(step) < first.steps ? { seats, trains: [...first.trains] } : then.at(step - first.steps)),
  };
}

/** How many of the steps 0 … steps − 1 train `policy` (Tango's α runs on the generator's own updates). */
export function updatesOf(rotation: Pick<Rotation, 'at'>, policy: string, steps: number): number {
  let updates = 0;
  for (let step = 0; step < steps; step++) if (rotation.at(step).trains.includes(policy)) updates++;
  return updates;
}

/** The first step (0-based) at which the rotation trains `policy`; undefined if it never does. */
export function firstUpdateOf(rotation: Pick<Rotation, 'at' | 'offset' | 'period'>, policy: string): number | undefined {
  return distinctSteps(rotation).find((step) => rotation.at(step).trains.includes(policy));
}

function nonNegative(step: number): number {
  if (!(Number.isInteger(step) && step >= 0)) fail('INPUT_INVALID', `rotation: optimizer step must be a whole number ≥ 0, got ${step}`);
  return step;
}

function distinct(values: readonly string[]): string[] {
  return [...new Set(values)];
}

/** Named rotations, as boardgame.io names its turn orders. */
export const Rotations = { fixed, alternateEveryStep, interleave, warmup } as const;
