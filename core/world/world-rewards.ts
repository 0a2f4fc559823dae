import type { StepReward } from '../advantages/estimator.ts';
import { fail } from '../errors.ts';
import type { MatchRewards, MatchVerdict, RewardRule } from '../game/rewards.ts';
import { GRADER_JUDGE } from '../grading/verdict.ts';
import type { TurnRecord } from '../protocols/turn-record.ts';
import type { WorldProtocol } from '../protocols/world.ts';
import type { Problem } from '../tasks/task.ts';
import { FORFEIT_START_LABEL } from './forfeit-credit.ts';
import { replayWorld, resultOf, worldPayoffs, type WorldTurnNote } from './world-match.ts';

/** The seed a world match's deal is drawn from: the `deal` of its problem (the `world` task's problems are deals). */
export function dealSeed(problem: Problem): number {
  const deal = problem.meta?.deal;
  if (typeof deal !== 'number' || !Number.isInteger(deal)) {
    return fail('CONFIG_INVALID', `problem "${problem.id}" has no deal: a world game is played on the "world" task's deals (--task world)`, { problem: problem.id });
  }
  return deal;
}

/**
 * What the world's move rewards pay `role` at the end of its turns: a move's reward to its mover (a number) or to any
 * player by name, each placed at the last token of that player's latest turn up to the move (its next turn where it has
 * not moved yet). A reward with no turn of the player's with tokens to stand on is `unplaced`, added to its outcome.
 */
export function stepRewardsOf(transcript: readonly TurnRecord<string>[], role: string): { rewards: StepReward[]; unplaced: number } {
  const ends: { turn: number; position: number }[] = [];
  let position = -1;
  for (const [i, turn] of transcript.entries()) {
    if (turn.role !== role || turn.tokens.length === 0) continue;
    position += turn.tokens.length;
    ends.push({ turn: i, position });
  }
  const byPosition = new Map<number, number>();
  let unplaced = 0;
  for (const [i, turn] of transcript.entries()) {
    const note = turn.world;
    const value = note?.rewards?.[role] ?? (note?.player === role ? note.reward : undefined);
    if (value === undefined) continue;
    const end = [...ends].reverse().find((e) => e.turn <= i) ?? ends.find((e) => e.turn > i);
    if (end === undefined) unplaced += value;
    else byPosition.set(end.position, (byPosition.get(end.position) ?? 0) + value);
  }
  return { rewards: [...byPosition].sort(([a], [b]) => a - b).map(([at, value]) => ({ position: at, value })), unplaced };
}

/**
 * A world game's reward rule: the match replayed from its deal and its turns' moves, each player paid its payoff
 * (the forfeit penalty, or 0 at the turn limit), the world's move rewards at the last token of their turns, and
 * labels the metrics and estimators read: win, draw, loss, illegal tries, forfeit, truncated. The grader's verdict of a
 * player is whether it won (`correct`) and whether it moved legally throughout (`answer_present`), so validation
 * tracks a win rate.
 */
export function worldRewards<Role extends string>(protocol: WorldProtocol<Role>): RewardRule<Role, Problem> {
  const { world, illegal } = protocol;
  return (match) => {
    const notes = match.transcript.map((turn) => turn.world ?? fail('WORLD_INVALID', `game "${world.id}": turn ${turn.turn} of match "${match.matchId}" carries no move`, { game: world.id, turn: turn.turn }));
    const final = replayWorld(world.id, world, dealSeed(match.problem), notes, illegal);
    const payoffs = worldPayoffs(world, final, illegal);
    const roles = world.players as readonly Role[];
    const steps: Partial<Record<Role, StepReward[]>> = {};
    const labels: Partial<Record<Role, Record<string, number>>> = {};
    const verdicts: MatchVerdict<Role>[] = [];
    const extra = world.labels?.(final.state);
    const outcome: Record<string, number> = { ...payoffs };
    for (const role of roles) {
      const mine = match.transcript.filter((turn) => turn.role === role);
      const forfeitStart = final.forfeit === role ? mine.slice(0, -1).reduce((sum, turn) => sum + turn.tokens.length, 0) : -1;
      const { rewards, unplaced } = stepRewardsOf(match.transcript, role);
      if (rewards.length > 0) steps[role] = rewards;
      outcome[role] += unplaced;
      const result = resultOf(payoffs, role, world.utility);
      labels[role] = {
        win: result === 'win' ? 1 : 0,
        draw: result === 'draw' ? 1 : 0,
        loss: result === 'loss' ? 1 : 0,
        illegal: notes.filter((note: WorldTurnNote) => note.player === role && note.verdict !== 'legal').length,
        forfeit: final.forfeit === role ? 1 : 0,
        truncated: final.truncated ? 1 : 0,
        [FORFEIT_START_LABEL]: forfeitStart,
        ...extra?.[role],
      };
      verdicts.push({ role, judge: GRADER_JUDGE, turn: mine.at(-1)?.turn ?? 0, answer_present: final.forfeit !== role, correct: result === 'win' });
    }
    const rewards: MatchRewards<Role> = { outcome: outcome as Record<Role, number>, steps, labels, verdicts };
    return rewards;
  };
}
