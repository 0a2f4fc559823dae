import { fail } from '../core/errors.ts';
import { defineGame } from '../core/game/define-game.ts';
import { Rotations } from '../core/game/rotations.ts';
import { CoDecoding, WORD_HANDOFF_DEFAULTS } from '../core/protocols/co-decoding.ts';
import type { Grader } from '../core/grading/verdict.ts';
import { gradeMath } from '../plugins/graders/math/grade-math.ts';
import type { Problem } from '../core/tasks/task.ts';
import type { RlGame, RlKnobs } from '../core/game/rl-game.ts';
import { boxedAnswerReward } from '../plugins/rewards/boxed-answer-reward.ts';

export interface TandemOptions {
  /** Probability of drawing the senior at each word-boundary redraw (§3.3). */
  p?: number;
  /** Subword-span cap: redraw after K non-boundary tokens (appendix A.1.2). */
  K?: number;
  /**
   * The senior's share of each response must lie in this band. p = 0.5 over tens of words puts it near 0.5; the
   * band only catches a schedule that collapsed (a senior writing all or none of a response).
   */
  shareBand?: readonly [number, number];
  /**
   * λ_jun: weight of a term −log π_sen(y_t) on the junior's tokens, pulling the senior toward what the junior wrote
   * (the original tandem objective). The paper sets it to 0 (§3.4), which keeps the loss exactly GRPO's.
   */
  juniorImitation?: number;
}

export const TANDEM_SHARE_BAND = [0.05, 0.95] as const;

/**
 * Tandem RL (Jiao et al.): a trainable senior and a frozen junior, both the same base at the start, co-write one
 * answer, the author redrawn by Bernoulli(p) at every word-initial token; the team gets the binary boxed-answer
 * reward and only the senior's tokens get GRPO gradient.
 */
export function tandemGame(options: TandemOptions = {}, grade: Grader = gradeMath): RlGame<'senior' | 'junior'> {
  const juniorImitation = options.juniorImitation ?? 0;
  if (!(Number.isFinite(juniorImitation) && juniorImitation >= 0)) {
    fail('CONFIG_INVALID', `tandem: juniorImitation (λ_jun) must be a number ≥ 0, got ${juniorImitation}`, { field: 'juniorImitation' });
  }
  return defineGame<'senior' | 'junior', Problem, RlKnobs>({
    id: 'tandem',
    roles: ['senior', 'junior'],
    protocol: CoDecoding.wordHandoff({ senior: 'senior', junior: 'junior', p: options.p ?? WORD_HANDOFF_DEFAULTS.p, K: options.K ?? WORD_HANDOFF_DEFAULTS.K }),
    rewards: boxedAnswerReward(['senior', 'junior'], grade),
    rotation: Rotations.fixed(['senior', 'junior'], ['senior']),
    trainable: ['senior'],
    shareBand: options.shareBand ?? TANDEM_SHARE_BAND,
    klToJunior: 0,
    juniorImitation,
    grade,
  });
}
