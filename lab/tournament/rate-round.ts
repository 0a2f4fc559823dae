import { fitBradleyTerry, type BradleyTerryFit } from '../../core/tournament/bradley-terry.ts';
import { recordContest, winMatrix, type PayoffTable } from '../../core/tournament/payoff.ts';
import { conservativeRating, initialSkill, rateContest, type Skill, type SkillSettings } from '../../core/tournament/skill-ratings.ts';
import type { Contest } from './contests.ts';
import type { Scoped } from './league-state.ts';

/** An entrant's ratings in one scope (overall or a game) after a round. */
export interface EntrantRating {
  readonly mu: number;
  readonly sigma: number;
  /** μ − 3σ: what the leaderboard sorts by. */
  readonly ordinal: number;
  /** The batch Bradley–Terry strength over the whole payoff table so far (log-odds, centred), with its SE. */
  readonly bt: { readonly theta: number; readonly se: number };
}

export type ScopeRatings = Record<string, EntrantRating>;

/**
 * Applies a round's contests in order, to the game's skills and to the overall ones, and records them in the payoff
 * tables (sequential openskill updates: their result depends on that order, which is fixed by game, lineup and match).
 */
export function applyContests(contests: readonly Contest[], skills: Scoped<Record<string, Skill>>, payoff: Scoped<PayoffTable>, settings: SkillSettings): void {
  for (const contest of contests) {
    for (const table of [skills.overall, (skills.games[contest.game] ??= {})]) {
      const rated = rateContest((name) => table[name] ?? initialSkill(settings), contest.sides, settings);
      for (const [name, skill] of rated) table[name] = skill;
    }
    recordContest(payoff.overall, contest.sides);
    recordContest((payoff.games[contest.game] ??= {}), contest.sides);
  }
}

/** Every entrant's ratings in one scope: its openskill belief (the prior for one that never played) and the batch Bradley–Terry fit. */
export function scopeRatings(entrants: readonly string[], skills: Readonly<Record<string, Skill>>, payoff: PayoffTable, settings: SkillSettings & { ridge: number }): ScopeRatings {
  const fit: BradleyTerryFit = fitBradleyTerry(winMatrix(payoff, entrants), { ridge: settings.ridge });
  return Object.fromEntries(
    entrants.map((name, i) => {
      const skill = skills[name] ?? initialSkill(settings);
      return [name, { mu: skill.mu, sigma: skill.sigma, ordinal: conservativeRating(skill), bt: { theta: fit.theta[i], se: fit.se[i] } }];
    }),
  );
}
