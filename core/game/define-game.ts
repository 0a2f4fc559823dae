import type { AdvantageEstimator } from '../advantages/estimator.ts';
import { fail } from '../errors.ts';
import type { Problem } from '../tasks/task.ts';
import { actingRoles, type Protocol } from '../protocols/protocol.ts';
import type { RewardRule } from './rewards.ts';
import { distinctSteps, Rotations, type Rotation, type RotationStep } from './rotations.ts';
import { DEFAULT_HEADLINE, headlineKeyProblem, type Headline } from './headline.ts';
import { ENV_AUTHOR } from '../trajectory/trajectory.ts';
import { callerOutside, type SourceLocation } from './source-location.ts';
import { ownSecretsOnly, type View } from './view.ts';

/** Loss terms a trainable role adds to the clipped policy gradient. */
export interface LossTerms<Role extends string> {
  /**
   * β · KL toward the policy seated in `toward` (KL-Reg: the frozen junior), or toward the policy's own start.
   * `estimator`: `k3` (default), the per-token estimate from the sampled tokens and the reference's log-probabilities
   * of them; `exact`, the full KL over the vocabulary at every position, the reference run inside the train graph.
   */
  readonly kl?: { readonly toward: Role | 'initial'; readonly beta: number; readonly estimator?: 'k3' | 'exact' };
  /** λ · (−log π(token)) on the tokens `role` wrote into the same response (the original tandem objective's λ_jun). */
  readonly imitate?: { readonly role: Role; readonly weight: number };
  /** An entropy bonus, −coef · H(π(·|context)) per trained token (Tango's runs: 0.001). */
  readonly entropy?: { readonly coef: number };
}

/** Everything a game declares. `roles` alone fixes the role names; every other field must use them. */
export interface GameDefinition<Role extends string, Problem> {
  readonly id: string;
  readonly roles: readonly Role[];
  /** The policy slots a run binds to checkpoints (RLlib's `policies`); one per role, named after it, when absent. */
  readonly policies?: readonly string[];
  readonly protocol: Protocol<NoInfer<Role>, Problem>;
  readonly rewards: RewardRule<NoInfer<Role>, Problem>;
  /**
   * Which policy sits in which role and which policies learn, step by step. Absent: every role seated by the policy
   * of its name, every policy seated in a trainable role trained at every step.
   */
  readonly rotation?: Rotation<NoInfer<Role>>;
  /** Roles whose tokens ever receive gradient; their loss masks fail closed. */
  readonly trainable: readonly NoInfer<Role>[];
  /** Strips hidden information before any broadcast or prompt; each role sees its own secrets only when absent. */
  readonly view?: View<NoInfer<Role>, Problem>;
  /** Per trainable role: terms beyond the clipped policy gradient. */
  readonly losses?: Readonly<Partial<Record<NoInfer<Role>, LossTerms<NoInfer<Role>>>>>;
  /** Per trainable role: how the run's advantage estimator is adapted (Agon drops zero-variance groups). */
  readonly advantages?: Readonly<Partial<Record<NoInfer<Role>, (base: AdvantageEstimator) => AdvantageEstimator>>>;
  /**
   * How many leading turns the matches of one group share at a step (played once, then continued separately): Tango's
   * verifier steps judge one solution several times. 0 when absent: every match of a group is played from the start.
   */
  readonly sharedTurns?: (step: RotationStep<NoInfer<Role>>) => number;
  /** The role whose correctness (the grader's verdicts) validation tracks to keep the best checkpoint; the first trainable role when absent. */
  readonly validateOn?: NoInfer<Role>;
  /** The task a run plays when its config names none (Tango: last-letter, its paper's task with gold step labels); the run config's default when absent. */
  readonly defaultTask?: string;
  /**
   * Run-config fields a run of this game takes when its config does not give them (a world game: SPIRAL's RAE as the
   * estimator, no grader-based validation). Checked by the trainer's config schema where a run is resolved.
   */
  readonly runDefaults?: Readonly<Record<string, unknown>>;
  /**
   * The shipped base (a folder of the package's models/) a run starts from when its config names no model (Tango and
   * Agon: arithmetic-judge, the base with a verifier's and a challenger's format); its task is then the run's default
   * task. The task's own shipped base when absent.
   */
  readonly defaultModel?: string;
  /**
   * Per policy: how a run binds it when the run config's `policies` entry does not say (the same fields, checked by the
   * trainer; the config's own fields win). Agon: its two policies are LoRA adapters over one frozen base.
   */
  readonly policyDefaults?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /** The curves the viewer draws first, larger (metric keys, `*` for every role or policy); DEFAULT_HEADLINE when absent. */
  readonly headline?: Headline;
}

/** A validated game: its definition with every default filled in, and its knobs (the papers' hyperparameters) alongside. */
export type Game<Role extends string = string, P = Problem, Knobs extends object = {}> = Readonly<Required<Omit<GameDefinition<Role, P>, 'defaultTask' | 'runDefaults' | 'defaultModel'>>> &
  Readonly<Pick<GameDefinition<Role, P>, 'defaultTask' | 'runDefaults' | 'defaultModel'>> &
  Readonly<Omit<Knobs, keyof GameDefinition<Role, P>>>;

const GAME_ID = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

/** A game as a plain typed object, checked once here so a bad game fails before any match runs. */
export function defineGame<const Role extends string, P, Knobs extends object = {}>(definition: GameDefinition<Role, P> & Knobs): Game<Role, P, Knobs> {
  const invalid = (field: string, why: string): never => fail('CONFIG_INVALID', `game "${String(definition.id)}": ${field} ${why}`, { game: definition.id, field });

  if (typeof definition.id !== 'string' || !GAME_ID.test(definition.id)) invalid('id', 'must be kebab-case (a-z, 0-9, single dashes)');
  checkNameList(definition.roles, 'roles', invalid);
  if (definition.roles.length === 0) invalid('roles', 'must name at least one role');
  if ((definition.roles as readonly string[]).includes(ENV_AUTHOR)) invalid('roles', `may not name "${ENV_AUTHOR}": it is the author of a tool's result tokens, which never train`);
  checkNameList(definition.trainable, 'trainable', invalid);
  if (definition.trainable.length === 0) invalid('trainable', 'must name at least one role: a game trains someone');

  const roles = new Set<string>(definition.roles);
  const trainable = new Set<string>(definition.trainable);
  for (const role of trainable) if (!roles.has(role)) invalid('trainable', `names "${role}", which is not one of the roles`);

  const acting = new Set<string>(actingRoles(definition.protocol));
  for (const role of acting) if (!roles.has(role)) invalid('protocol', `lets "${role}" act, which is not one of the roles`);
  for (const role of trainable) if (!acting.has(role)) invalid('trainable', `names "${role}", which never acts in protocol "${definition.protocol.name}"`);
  if (definition.protocol.family === 'co-decoding') checkNameList(definition.protocol.authors, 'protocol.authors', invalid);

  const policies = definition.policies ?? definition.roles;
  checkNameList(policies, 'policies', invalid);
  if (definition.policies !== undefined && definition.rotation === undefined) invalid('rotation', 'is needed when the game names its own policies');
  const rotation = definition.rotation ?? Rotations.fixed(Object.fromEntries(definition.roles.map((role) => [role, role])) as unknown as Record<Role, string>, definition.trainable);
  checkRotation(rotation, roles, trainable, new Set(policies), invalid);
  checkRoleKeys(definition.losses, 'losses', trainable, invalid);
  checkRoleKeys(definition.advantages, 'advantages', trainable, invalid);
  for (const [role, terms] of Object.entries<LossTerms<string> | undefined>(definition.losses ?? {})) {
    if (terms?.kl && !(Number.isFinite(terms.kl.beta) && terms.kl.beta >= 0)) invalid(`losses.${role}.kl.beta`, `must be a finite number ≥ 0, got ${terms.kl.beta}`);
    if (terms?.kl && terms.kl.estimator !== undefined && terms.kl.estimator !== 'k3' && terms.kl.estimator !== 'exact') invalid(`losses.${role}.kl.estimator`, `must be "k3" or "exact", got ${JSON.stringify(terms.kl.estimator)}`);
    if (terms?.kl && terms.kl.toward !== 'initial' && !roles.has(terms.kl.toward)) invalid(`losses.${role}.kl.toward`, `names "${terms.kl.toward}", which is not one of the roles`);
    if (terms?.imitate && !(Number.isFinite(terms.imitate.weight) && terms.imitate.weight >= 0)) invalid(`losses.${role}.imitate.weight`, `must be a finite number ≥ 0, got ${terms.imitate.weight}`);
    if (terms?.imitate && !roles.has(terms.imitate.role)) invalid(`losses.${role}.imitate.role`, `names "${terms.imitate.role}", which is not one of the roles`);
    if (terms?.entropy && !(Number.isFinite(terms.entropy.coef) && terms.entropy.coef >= 0)) invalid(`losses.${role}.entropy.coef`, `must be a finite number ≥ 0, got ${terms.entropy.coef}`);
  }
  if (definition.defaultTask !== undefined && (typeof definition.defaultTask !== 'string' || definition.defaultTask === '')) invalid('defaultTask', 'must be a task name');
  if (definition.defaultModel !== undefined && (typeof definition.defaultModel !== 'string' || !/^[\w.-]+$/.test(definition.defaultModel))) invalid('defaultModel', 'must be the name of a folder of models/');
  for (const name of Object.keys(definition.policyDefaults ?? {})) if (!policies.includes(name)) invalid('policyDefaults', `names "${name}", which is not one of the game's policies`);
  if (definition.headline !== undefined && !Array.isArray(definition.headline)) invalid('headline', 'must be a list of metric keys');
  for (const key of definition.headline ?? []) {
    const problem = headlineKeyProblem(key);
    if (problem) invalid('headline', problem);
  }
  const validateOn = definition.validateOn ?? definition.trainable[0];
  if (!roles.has(validateOn)) invalid('validateOn', `names "${validateOn}", which is not one of the roles`);

  const game = Object.freeze({
    ...definition,
    policies: [...policies],
    rotation,
    view: definition.view ?? ownSecretsOnly,
    losses: definition.losses ?? {},
    advantages: definition.advantages ?? {},
    sharedTurns: definition.sharedTurns ?? (() => 0),
    validateOn,
    policyDefaults: definition.policyDefaults ?? {},
    headline: definition.headline ?? DEFAULT_HEADLINE,
  }) as Game<Role, P, Knobs>;
  const definedAt = callerOutside(import.meta.url);
  if (definedAt) SOURCES.set(game, definedAt);
  return game;
}

const SOURCES = new WeakMap<object, SourceLocation>();

/** Where a game was defined (the file and line that called defineGame), for errors that point at its code. */
export function gameSource(game: object): SourceLocation | undefined {
  return SOURCES.get(game);
}

function checkNameList(list: readonly string[], field: string, invalid: (field: string, why: string) => never): void {
  if (!Array.isArray(list)) invalid(field, 'must be a list of names');
  const seen = new Set<string>();
  for (const name of list) {
    if (typeof name !== 'string' || name.length === 0) invalid(field, 'must hold non-empty names');
    if (seen.has(name)) invalid(field, `lists "${name}" twice`);
    seen.add(name);
  }
}

function checkRoleKeys(record: object | undefined, field: string, trainable: ReadonlySet<string>, invalid: (field: string, why: string) => never): void {
  for (const role of Object.keys(record ?? {})) if (!trainable.has(role)) invalid(field, `names "${role}", which is not a trainable role`);
}

/**
 * Every step of the rotation (warm-up and one period) seats every role exactly once with a known policy, trains only
 * known policies that sit in a trainable role, and every trainable role is trained at some step.
 */
function checkRotation(
  rotation: Rotation<string>,
  roles: ReadonlySet<string>,
  trainable: ReadonlySet<string>,
  policies: ReadonlySet<string>,
  invalid: (field: string, why: string) => never,
): void {
  const name = `"${rotation.name}"`;
  if (!(Number.isInteger(rotation.period) && rotation.period > 0)) invalid('rotation', `${name} needs a positive whole period`);
  if (!(Number.isInteger(rotation.offset) && rotation.offset >= 0)) invalid('rotation', `${name} needs a whole offset ≥ 0`);
  const everTrained = new Set<string>();
  for (const step of distinctSteps(rotation)) {
    const { seats, trains } = rotation.at(step);
    const seated = Object.keys(seats);
    for (const role of roles) if (!seated.includes(role)) invalid('rotation', `${name} seats nobody in "${role}" at step ${step}: every role must be seated exactly once`);
    for (const role of seated) if (!roles.has(role)) invalid('rotation', `${name} seats "${role}" at step ${step}, which is not one of the roles`);
    for (const [role, policy] of Object.entries<string>(seats)) {
      if (!policies.has(policy)) invalid('rotation', `${name} seats policy "${policy}" in "${role}" at step ${step}, which is not one of the game's policies`);
    }
    for (const policy of trains) {
      const learnsFrom = seated.filter((role) => seats[role as keyof typeof seats] === policy && trainable.has(role));
      if (learnsFrom.length === 0) invalid('rotation', `${name} trains "${policy}" at step ${step}, which sits in no trainable role then`);
      for (const role of learnsFrom) everTrained.add(role);
    }
  }
  for (const role of trainable) if (!everTrained.has(role)) invalid('rotation', `${name} never trains "${role}"`);
}
