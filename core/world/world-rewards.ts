import type { StepReward } from '../advantages/estimator.ts';
import { fail } from '../errors.ts';
import type { MatchRewards, MatchVerdict, RewardRule } from '../game/rewards.ts';
import { GRADER_JUDGE } from '../grading/verdict.ts';
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
 * A world game's reward rule: the match replayed from its deal and its turns' moves, each player paid its payoff
 * (the forfeit penalty, or 0 at the turn limit), the world's per-move rewards at the last token of their turns, and
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
    for (const role of roles) {
      const mine = match.transcript.filter((turn) => turn.role === role);
      const forfeitStart = final.forfeit === role ? mine.slice(0, -1).reduce((sum, turn) => sum + turn.tokens.length, 0) : -1;
      let position = -1;
      const rewards: StepReward[] = [];
      for (const turn of mine) {
        position += turn.tokens.length;
        if (turn.world?.reward !== undefined && turn.tokens.length > 0) rewards.push({ position, value: turn.world.reward });
      }
      if (rewards.length > 0) steps[role] = rewards;
      const result = resultOf(payoffs, role);
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
    const rewards: MatchRewards<Role> = { outcome: payoffs as Record<Role, number>, steps, labels, verdicts };
    return rewards;
  };
}
