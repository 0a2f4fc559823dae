import type { AdvantageEstimator } from './advantages/estimator.ts';
import type { Game } from './game/define-game.ts';
import type { RewardRule } from './game/rewards.ts';
import type { Rotation } from './game/rotations.ts';
import type { Grader } from './grading/verdict.ts';
import type { PluginSet } from './plugin.ts';
import type { ShareBand } from './protocols/co-decoding.ts';
import type { Protocol } from './protocols/protocol.ts';
import type { Problem } from './tasks/task.ts';

/**
 * A game as plugins hold it: its roles are its own string literals, which a list of games of different roles can
 * only hold loosely (a game's role type appears both in and out of its functions).
 */
// biome-ignore lint/suspicious/noExplicitAny: a game's role type is both read and written by its functions, so only any admits every game.
export type AnyGame = Game<any, Problem>;

/** What a game plugin is built from: the run's grader and the game's own knobs (`"knobs"` of a training config). */
export interface GameOptions {
  readonly grader: Grader;
  /** The game checks these itself (its paper's hyperparameters); unknown keys are its to refuse. */
  readonly knobs: Readonly<Record<string, unknown>>;
}

/** What a protocol is built from: the roles in the order the preset reads them, and its knobs (absent = paper value). */
export interface ProtocolOptions {
  readonly roles: readonly string[];
  /** Bernoulli p of the first role (word handoff: the senior; step handoff: roles[0]). */
  readonly p?: number;
  /** Word handoff's backstop: redraw after K non-boundary tokens. */
  readonly K?: number;
  /** Step handoff's first author; absent, drawn by Bernoulli(p). */
  readonly first?: string;
  readonly shareBand?: ShareBand;
}

export interface RewardRuleOptions {
  /** The roles paid. */
  readonly roles: readonly string[];
  readonly grader: Grader;
}

export interface RotationOptions {
  /** The game's roles, in the order `policies` lists their first seats. */
  readonly roles: readonly string[];
  /**
   * `policies[i]` is the policy seated in `roles[i]` at step 0 (default: the role's own name). A role listed twice in
   * `roles` is refused.
   */
  readonly policies?: readonly string[];
  /** `fixed`: the policies updated (default: all). */
  readonly trains?: readonly string[];
  /** `interleave`: train each policy for its steps in turn (Tango's N_g:N_v). */
  readonly phases?: readonly { policy: string; steps: number }[];
  /** Steps at the start in which only `warmupTrains` learn (Tango's verifier warm-up). */
  readonly warmupSteps?: number;
  readonly warmupTrains?: readonly string[];
}

/** Every plugin the loaded modules provide, by kind and name: what a config's names resolve against. */
export interface Catalog {
  readonly games: PluginSet<AnyGame, GameOptions>;
  readonly advantageEstimators: PluginSet<AdvantageEstimator>;
  readonly protocols: PluginSet<Protocol<string, Problem>, ProtocolOptions>;
  readonly rewardRules: PluginSet<RewardRule<string, Problem>, RewardRuleOptions>;
  readonly rotations: PluginSet<Rotation<string>, RotationOptions>;
  readonly graders: PluginSet<Grader>;
}
