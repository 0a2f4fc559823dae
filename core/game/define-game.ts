import { fail } from '../errors.ts';
import { actingRoles, type Protocol } from '../protocols/protocol.ts';
import type { RewardRule } from './rewards.ts';
import type { Rotation } from './rotations.ts';
import { ownSecretsOnly, type View } from './view.ts';

/** Everything a game declares. `roles` alone fixes the role names; every other field must use them. */
export interface GameDefinition<Role extends string, Problem> {
  readonly id: string;
  readonly roles: readonly Role[];
  readonly protocol: Protocol<NoInfer<Role>, Problem>;
  readonly rewards: RewardRule<NoInfer<Role>, Problem>;
  readonly rotation: Rotation<NoInfer<Role>>;
  /** Roles that ever receive gradient; their loss masks fail closed. */
  readonly trainable: readonly NoInfer<Role>[];
  /** Strips hidden information before any broadcast or prompt; each role sees its own secrets only when absent. */
  readonly view?: View<NoInfer<Role>, Problem>;
}

/** A validated game: its definition, its view filled in, and its knobs (the papers' hyperparameters) alongside. */
export type Game<Role extends string, Problem, Knobs extends object = {}> = Readonly<Required<GameDefinition<Role, Problem>>> &
  Readonly<Omit<Knobs, keyof GameDefinition<Role, Problem>>>;

const GAME_ID = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

/** A game as a plain typed object, checked once here so a bad config fails before any match runs. */
export function defineGame<const Role extends string, Problem, Knobs extends object = {}>(
  definition: GameDefinition<Role, Problem> & Knobs,
): Game<Role, Problem, Knobs> {
  const invalid = (field: string, why: string): never =>
    fail('CONFIG_INVALID', `game "${String(definition.id)}": ${field} ${why}`, { game: definition.id, field });

  if (typeof definition.id !== 'string' || !GAME_ID.test(definition.id)) invalid('id', 'must be kebab-case (a-z, 0-9, single dashes)');
  checkRoleList(definition.roles, 'roles', invalid);
  if (definition.roles.length === 0) invalid('roles', 'must name at least one role');
  checkRoleList(definition.trainable, 'trainable', invalid);
  if (definition.trainable.length === 0) invalid('trainable', 'must name at least one role: a game trains someone');

  const roles = new Set<string>(definition.roles);
  const trainable = new Set<string>(definition.trainable);
  for (const role of trainable) if (!roles.has(role)) invalid('trainable', `names "${role}", which is not one of the roles`);

  const acting = new Set<string>(actingRoles(definition.protocol));
  for (const role of acting) if (!roles.has(role)) invalid('protocol', `lets "${role}" act, which is not one of the roles`);
  for (const role of trainable) if (!acting.has(role)) invalid('trainable', `names "${role}", which never acts in protocol "${definition.protocol.name}"`);
  if (definition.protocol.family === 'co-decoding') checkRoleList(definition.protocol.authors, 'protocol.authors', invalid);

  checkRotation(definition.rotation, roles, trainable, invalid);

  return Object.freeze({ ...definition, view: definition.view ?? ownSecretsOnly }) as Game<Role, Problem, Knobs>;
}

function checkRoleList(list: readonly string[], field: string, invalid: (field: string, why: string) => never): void {
  if (!Array.isArray(list)) invalid(field, 'must be a list of role names');
  const seen = new Set<string>();
  for (const role of list) {
    if (typeof role !== 'string' || role.length === 0) invalid(field, 'must hold non-empty role names');
    if (seen.has(role)) invalid(field, `lists "${role}" twice`);
    seen.add(role);
  }
}

function checkRotation(rotation: Rotation<string>, roles: ReadonlySet<string>, trainable: ReadonlySet<string>, invalid: (field: string, why: string) => never): void {
  if (!(Number.isInteger(rotation.period) && rotation.period > 0)) invalid('rotation', `"${rotation.name}" needs a positive whole period`);
  const everTrained = new Set<string>();
  for (let step = 0; step < rotation.period; step++) {
    const { seats, trains } = rotation.at(step);
    if (seats.length !== roles.size || new Set(seats).size !== seats.length || seats.some((role) => !roles.has(role))) {
      invalid('rotation', `"${rotation.name}" seats [${seats.join(', ')}] at step ${step}: every role must be seated exactly once`);
    }
    for (const role of trains) {
      if (!trainable.has(role)) invalid('rotation', `"${rotation.name}" trains "${role}" at step ${step}, which is not trainable`);
      everTrained.add(role);
    }
  }
  for (const role of trainable) if (!everTrained.has(role)) invalid('rotation', `"${rotation.name}" never trains "${role}"`);
}
