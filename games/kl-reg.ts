import { z } from 'zod';
import { defineGame } from '../core/game/define-game.ts';
import type { Grader } from '../core/grading/verdict.ts';
import { parseConfig } from '../core/parse-config.ts';
import { CoDecoding } from '../core/protocols/co-decoding.ts';
import type { Problem } from '../core/tasks/task.ts';
import { boxedAnswerReward } from '../plugins/rewards/boxed-answer-reward.ts';

/**
 * β of the KL toward the junior. Our copy of the paper lacks its Table 4, so this is verl's usual kl_loss_coef
 * (0.001), the value GRPO recipes start from (ours, not the paper's).
 */
export const KL_REG_DEFAULT_BETA = 0.001;

export const KlRegKnobsSchema = z.strictObject({
  beta: z.number().min(0).default(KL_REG_DEFAULT_BETA).describe("β of the per-token KL toward the frozen junior (§5.2; ours: 0.001, verl's usual coefficient, as our copy of the paper lacks its Table 4)"),
  klEstimator: z
    .enum(['k3', 'exact'])
    .default('k3')
    .describe(
      "how the KL is computed: k3, the per-token estimate from the sampled tokens; exact, the per-position KL over the whole vocabulary of appendix C, Eq. 2, the junior run inside the train graph so no [T × V] distribution reaches JavaScript (ours: k3 by default, verl's estimator)",
    ),
});

/**
 * The paper's KL-Reg ablation (§5.2, appendix C): solo GRPO rollouts plus a per-token KL penalty (k3 or exact) toward the
 * frozen junior (the pre-RL base). The junior never writes; it only scores the senior's tokens.
 */
export function klRegGame(knobs: unknown, grade: Grader) {
  const { beta, klEstimator } = parseConfig(KlRegKnobsSchema, knobs ?? {}, 'kl-reg knobs');
  return defineGame<'senior' | 'junior', Problem>({
    id: 'kl-reg',
    roles: ['senior', 'junior'],
    protocol: CoDecoding.solo('senior'),
    rewards: boxedAnswerReward(['senior', 'junior'], grade),
    trainable: ['senior'],
    losses: { senior: { kl: { toward: 'junior', beta, estimator: klEstimator } } },
  });
}
