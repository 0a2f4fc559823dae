import { fail, LudusError } from '../../core/errors.ts';
import { gameSource } from '../../core/game/define-game.ts';
import type { MatchState } from '../../core/game/match-state.ts';
import type { MatchRewards } from '../../core/game/rewards.ts';
import { formatLocation, userFrame, type SourceLocation } from '../../core/game/source-location.ts';
import type { Game } from '../../core/game/define-game.ts';

const at = (location: SourceLocation | undefined) => (location ? ` (${formatLocation(location)})` : '');
const shown = (value: unknown) => (value === undefined ? 'no reward' : typeof value === 'number' ? String(value) : JSON.stringify(value) ?? String(value));

/**
 * A finished match scored by its game's reward rule, checked where a user's mistake would otherwise surface steps
 * later as an estimator's NaN or a role's first update: a rule that throws, a role left out of `outcome`, a reward that
 * is not a finite number. Each is a coded error naming the game, the role, the match and the file and line (where the
 * rule threw, else where the game was defined).
 */
export async function checkedRewards<Role extends string, P>(game: Game<Role, P>, state: MatchState<Role, P>): Promise<MatchRewards<Role>> {
  let rewards: MatchRewards<Role>;
  try {
    rewards = await game.rewards(state);
  } catch (error) {
    const thrownAt = userFrame(error) ?? gameSource(game);
    const message = error instanceof LudusError ? error.message : error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    throw new LudusError('REWARD_FAILED', `game "${game.id}": its reward rule threw while scoring match ${state.matchId} (roles ${game.roles.join(', ')})${at(thrownAt)}: ${message}`, {
      game: game.id,
      match: state.matchId,
      ...(thrownAt ? { file: thrownAt.file, line: thrownAt.line } : {}),
    });
  }
  const definedAt = gameSource(game);
  const invalid = (role: string, why: string): never =>
    fail('REWARD_INVALID', `game "${game.id}": its reward rule${definedAt ? `, defined at ${formatLocation(definedAt)},` : ''} ${why} on match ${state.matchId}; every role (${game.roles.join(', ')}) needs a finite number in outcome`, {
      game: game.id,
      role,
      match: state.matchId,
      ...(definedAt ? { file: definedAt.file, line: definedAt.line } : {}),
    });
  if (typeof rewards !== 'object' || rewards === null || typeof rewards.outcome !== 'object' || rewards.outcome === null) invalid('', `returned ${shown(rewards)} without an outcome object`);
  for (const role of game.roles) {
    const reward: unknown = rewards.outcome[role];
    if (typeof reward !== 'number' || !Number.isFinite(reward)) invalid(role, reward === undefined ? `left out role "${role}"` : `gave role "${role}" ${shown(reward)}`);
  }
  for (const role of Object.keys(rewards.outcome)) if (!(game.roles as readonly string[]).includes(role)) invalid(role, `paid "${role}", which is not one of its roles`);
  for (const [role, steps] of Object.entries(rewards.steps ?? {}) as [string, readonly { value: number }[] | undefined][]) {
    const bad = steps?.find((step) => !Number.isFinite(step.value));
    if (bad) invalid(role, `gave role "${role}" a step reward of ${shown(bad.value)}`);
  }
  return rewards;
}
