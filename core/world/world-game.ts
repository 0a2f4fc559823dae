import { z } from 'zod';
import { defineGame, type Game, type LossTerms } from '../game/define-game.ts';
import { Rotations } from '../game/rotations.ts';
import { parseConfig } from '../parse-config.ts';
import type { WorldProtocol } from '../protocols/world.ts';
import type { Problem } from '../tasks/task.ts';
import { creditForfeitToMove } from './forfeit-credit.ts';
import { worldRewards } from './world-rewards.ts';
import type { AnyWorld, IllegalMovePolicy, ScriptedPlayer } from './world.ts';

/** The knobs every world game has: who plays whom, who learns, what an illegal move costs, a move's budget. */
export const WorldKnobsSchema = z.strictObject({
  play: z
    .enum(['self-play', 'two-policy'])
    .default('self-play')
    .describe("self-play: one policy (`player`) in every seat, trained on every learning seat's turns (SPIRAL §3); two-policy: a policy per seat, named after it"),
  learn: z.array(z.string().min(1)).optional().describe("the seats whose turns are trained on (absent: every seat, as SPIRAL trains both players' trajectories)"),
  illegal: z.enum(['forfeit', 'retry']).default('forfeit').describe('an illegal or unparseable move forfeits the game at once (SPIRAL train_spiral.py) or is written again up to `retries` times first'),
  retries: z.number().int().min(0).default(2).describe('tries a player gets after an illegal move under `illegal: retry` (ours)'),
  penalty: z.number().default(-1.5).describe("the forfeiting player's payoff (SPIRAL train_spiral.py: −1.5)"),
  others: z.number().default(0.5).describe("every other player's payoff on a forfeit (SPIRAL train_spiral.py: 0.5)"),
  forfeitCredit: z
    .enum(['match', 'move'])
    .default('move')
    .describe("who carries a forfeit's penalty in the loss: every move of the forfeiting player (match, SPIRAL) or only the move that forfeited (move, ours: a base that forfeits most games otherwise spreads its one wrong move's signal over every right one)"),
  klBeta: z
    .number()
    .min(0)
    .default(0)
    .describe("β of a KL term toward the learning policy's own start, on every learning seat's moves (ours: 0, none; a run that keeps a policy near its base sets it)"),
  klEstimator: z.enum(['k3', 'exact']).default('exact').describe("the KL term's estimator: exact, over the whole vocabulary at every move token (ours: a move is a few tokens), or k3 from the sampled tokens"),
  entropy: z.number().min(0).default(0).describe('coefficient of an entropy bonus on every learning seat\'s move tokens (ours: 0, none)'),
  moveTokens: z.number().int().positive().default(12).describe("a move's token budget (ours: the shipped world base writes a move in 2-6 tokens; SPIRAL lets Qwen3 think for thousands)"),
});

export type WorldKnobs = z.input<typeof WorldKnobsSchema>;

/**
 * What a world game's run takes unless its config says otherwise: SPIRAL's role-conditioned advantages (`rae`), and
 * neither grader validation nor the end-of-run comparison (a world game is measured against its reference opponents,
 * `ludus eval --game`); the rest is ours, sized for the shipped world base on two cores: 16 deals × 4 matches a step,
 * updates 32 rows at a time (a move's row is under 200 tokens), and lr 3e-4 (ours, measured: 40 TicTacToe self-play
 * steps at 1e-3 lowered the win rate against random 36% → 22.5%, at 3e-4 raised it to 57.5%; docs/world-games.md).
 */
export const WORLD_RUN_DEFAULTS = { advantage: 'rae', validateEvery: 0, finalComparison: 0, problemsPerStep: 16, groupSize: 4, microBatchRows: 32, schedule: { lr: 3e-4 } } as const;

/** A world game's first curves: draw-or-win against each fixed opponent (evalEvery), then wins and forfeits in training. */
export const WORLD_HEADLINE = ['eval/*/draw_or_win', 'role/*/win', 'role/*/forfeit'] as const;

/** The policy that sits in every seat under self-play. */
export const SELF_PLAY_POLICY = 'player';

/** The loss terms a learning seat adds to the policy gradient: a KL toward the policy's start and an entropy bonus, each where its knob is set. */
function worldLossTerms<Role extends string>(knobs: z.output<typeof WorldKnobsSchema>): LossTerms<Role> {
  return {
    ...(knobs.klBeta > 0 ? { kl: { toward: 'initial' as const, beta: knobs.klBeta, estimator: knobs.klEstimator } } : {}),
    ...(knobs.entropy > 0 ? { entropy: { coef: knobs.entropy } } : {}),
  };
}

/** A world game's illegal-move policy from its knobs. */
export function illegalMovePolicy(knobs: z.output<typeof WorldKnobsSchema>): IllegalMovePolicy {
  return knobs.illegal === 'retry'
    ? { kind: 'retry', retries: knobs.retries, penalty: knobs.penalty, others: knobs.others }
    : { kind: 'forfeit', penalty: knobs.penalty, others: knobs.others };
}

export interface WorldGameOptions<Role extends string> {
  /** Reference opponents by name, played in a seat given `scripted:<name>` (evaluation, tournaments). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly scripted?: Readonly<Record<string, ScriptedPlayer<any, any, Role>>>;
  /** This game's own defaults for knobs the config leaves out (Kuhn Poker's `klBeta`); the config's own values win. */
  readonly knobDefaults?: Partial<z.input<typeof WorldKnobsSchema>>;
}

/** The knobs with the game's defaults under them; anything but an object is left for the schema to refuse. */
function withKnobDefaults(knobs: unknown, defaults: object | undefined): unknown {
  const given = knobs ?? {};
  return defaults && typeof given === 'object' && !Array.isArray(given) ? { ...defaults, ...given } : given;
}

/**
 * A game from a world: its players are the roles, its deals the problems (`--task world`), its payoffs the rewards,
 * and its knobs say who plays whom and who learns. What `games/tictactoe.ts` and a user's world game are built with.
 */
export function worldGame<const Role extends string>(world: AnyWorld & { readonly players: readonly Role[] }, knobs: unknown, options: WorldGameOptions<Role> = {}): Game<Role, Problem, { readonly knobs: z.output<typeof WorldKnobsSchema> }> {
  const parsed = parseConfig(WorldKnobsSchema, withKnobDefaults(knobs, options.knobDefaults), `${world.id} knobs`);
  const lossTerms = worldLossTerms<Role>(parsed);
  const players = world.players;
  const learn = (parsed.learn ?? [...players]) as Role[];
  const protocol: WorldProtocol<Role> = {
    family: 'world',
    name: world.id,
    world,
    maxTokens: parsed.moveTokens,
    illegal: illegalMovePolicy(parsed),
    ...(options.scripted ? { scripted: options.scripted } : {}),
  };
  const selfPlay = parsed.play === 'self-play';
  return defineGame<Role, Problem, { readonly knobs: z.output<typeof WorldKnobsSchema> }>({
    id: world.id,
    roles: players,
    ...(selfPlay ? { policies: [SELF_PLAY_POLICY] } : {}),
    protocol,
    rewards: worldRewards(protocol),
    rotation: selfPlay
      ? Rotations.fixed(Object.fromEntries(players.map((p) => [p, SELF_PLAY_POLICY])) as Record<Role, string>, [SELF_PLAY_POLICY])
      : Rotations.fixed(Object.fromEntries(players.map((p) => [p, p])) as Record<Role, string>, [...new Set(learn)]),
    trainable: learn,
    ...(Object.keys(lossTerms).length > 0 ? { losses: Object.fromEntries(learn.map((role) => [role, lossTerms])) as Record<Role, LossTerms<Role>> } : {}),
    ...(parsed.forfeitCredit === 'move' ? { advantages: Object.fromEntries(learn.map((role) => [role, creditForfeitToMove])) as Record<Role, typeof creditForfeitToMove> } : {}),
    defaultTask: 'world',
    headline: WORLD_HEADLINE,
    runDefaults: WORLD_RUN_DEFAULTS,
    knobs: parsed,
  });
}
