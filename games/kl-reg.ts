import { fail } from '../core/errors.ts';
import { defineGame } from '../core/game/define-game.ts';
import { Rotations } from '../core/game/rotations.ts';
import { CoDecoding } from '../core/protocols/co-decoding.ts';
import type { Grader } from '../core/grading/verdict.ts';
import { gradeMath } from '../plugins/graders/math/grade-math.ts';
import type { Problem } from '../core/tasks/task.ts';
import type { RlGame, RlKnobs } from '../core/game/rl-game.ts';
import { boxedAnswerReward } from '../plugins/rewards/boxed-answer-reward.ts';

/**
 * β of the KL toward the junior. Our copy of the paper lacks its Table 4, so this is verl's usual kl_loss_coef
 * (0.001), the value GRPO recipes start from.
 */
export const KL_REG_DEFAULT_BETA = 0.001;

/**
 * The paper's KL-Reg ablation (§5.2, appendix C): solo GRPO rollouts plus a per-token k3 KL penalty toward the
 * frozen junior (the pre-RL base). The junior never writes; it only scores the senior's tokens.
 */
export function klRegGame(options: { beta?: number } = {}, grade: Grader = gradeMath): RlGame<'senior' | 'junior'> {
  const beta = options.beta ?? KL_REG_DEFAULT_BETA;
  if (!(Number.isFinite(beta) && beta >= 0)) fail('CONFIG_INVALID', `kl-reg: beta must be a finite number ≥ 0, got ${beta}`, { field: 'beta' });
  return defineGame<'senior' | 'junior', Problem, RlKnobs>({
    id: 'kl-reg',
    roles: ['senior', 'junior'],
    protocol: CoDecoding.solo('senior'),
    rewards: boxedAnswerReward(['senior', 'junior'], grade),
    rotation: Rotations.fixed(['senior', 'junior'], ['senior']),
    trainable: ['senior'],
    shareBand: [1, 1],
    klToJunior: beta,
    juniorImitation: 0,
    grade,
  });
}
