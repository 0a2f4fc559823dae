import { ordinal, rate, rating } from 'openskill';
import { fail } from '../errors.ts';

/** A Weng–Lin skill belief: a normal with mean μ and standard deviation σ. */
export interface Skill {
  readonly mu: number;
  readonly sigma: number;
}

/**
 * The Weng–Lin model's constants (Weng & Lin 2011, as openskill's defaults): prior μ = 25, σ = 25/3; β = 25/6, the
 * performance noise; τ = 25/300, the skill drift added before each update.
 */
export interface SkillSettings {
  readonly mu: number;
  readonly sigma: number;
  readonly beta: number;
  readonly tau: number;
}

export const WENG_LIN_DEFAULTS: SkillSettings = { mu: 25, sigma: 25 / 3, beta: 25 / 6, tau: 25 / 300 };

/** One side of a rated contest: its members with their partial-play weights in [0, 1], and what it scored (higher is better). */
export interface RatedSide {
  readonly members: readonly { readonly entrant: string; readonly weight: number }[];
  readonly score: number;
}

/** The conservative rating the leaderboard sorts by: μ − 3σ (openskill's ordinal). */
export const conservativeRating = (skill: Skill): number => ordinal(skill);

export const initialSkill = (settings: SkillSettings): Skill => rating({ mu: settings.mu, sigma: settings.sigma });

/**
 * Rates one contest between two or more sides with openskill (Plackett–Luce), ranked by score (equal scores tie), and
 * returns every member's new skill.
 *
 * Partial play: openskill 5.0.1 declares a `weight` option but does not use it, so a member of weight w takes the
 * fraction w of its full update, μ' = μ + w·(μ₁ − μ) and σ'² = (1 − w)·σ² + w·σ₁² (ours; w = 1 is the library's own
 * result, w = 0 leaves the member as it was). A co-writer with a 30% share of the response moves 30% of the way.
 *
 * An entrant on several sides of one contest (a cooperative game's lineups compared on one board) takes the sum of its
 * μ moves and the product of its variance factors, as if each appearance were a separate observation (ours).
 */
export function rateContest(skillOf: (entrant: string) => Skill, sides: readonly RatedSide[], settings: SkillSettings = WENG_LIN_DEFAULTS): Map<string, Skill> {
  if (sides.length < 2) fail('DATA_INVALID', `a rated contest needs at least two sides, got ${sides.length}`);
  for (const [s, side] of sides.entries()) {
    if (side.members.length === 0) fail('DATA_INVALID', `side ${s} of a rated contest has no member`);
    if (!Number.isFinite(side.score)) fail('DATA_INVALID', `side ${s} of a rated contest scored ${side.score}`);
    const names = side.members.map((m) => m.entrant);
    if (new Set(names).size !== names.length) fail('DATA_INVALID', `side ${s} lists an entrant twice (${names.join(', ')})`);
    for (const { entrant, weight } of side.members) if (!(weight >= 0 && weight <= 1)) fail('DATA_INVALID', `entrant "${entrant}" has partial-play weight ${weight}, outside [0, 1]`);
  }
  const teams = sides.map((side) => side.members.map(({ entrant }) => skillOf(entrant)));
  const rated = rate(teams, { score: sides.map((side) => side.score), mu: settings.mu, sigma: settings.sigma, beta: settings.beta, tau: settings.tau });
  const moves = new Map<string, { dMu: number; varianceFactor: number }>();
  sides.forEach((side, s) =>
    side.members.forEach(({ entrant, weight }, m) => {
      const before = teams[s][m];
      const after = rated[s][m];
      const move = moves.get(entrant) ?? { dMu: 0, varianceFactor: 1 };
      move.dMu += weight * (after.mu - before.mu);
      move.varianceFactor *= 1 - weight + (weight * after.sigma ** 2) / before.sigma ** 2;
      moves.set(entrant, move);
    }),
  );
  return new Map([...moves].map(([entrant, { dMu, varianceFactor }]) => {
    const before = skillOf(entrant);
    return [entrant, { mu: before.mu + dMu, sigma: before.sigma * Math.sqrt(varianceFactor) }];
  }));
}
