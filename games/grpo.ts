import { z } from 'zod';
import { dropZeroVarianceGroups } from '../core/advantages/drop-zero-variance.ts';
import { defineGame } from '../core/game/define-game.ts';
import type { Grader } from '../core/grading/verdict.ts';
import { parseConfig } from '../core/parse-config.ts';
import { CoDecoding } from '../core/protocols/co-decoding.ts';
import type { Problem } from '../core/tasks/task.ts';
import { boxedAnswerReward } from '../plugins/rewards/boxed-answer-reward.ts';

export const GrpoKnobsSchema = z.strictObject({
  zeroVariance: z
    .enum(['zero', 'drop'])
    .default('zero')
    .describe(
      "a group whose rewards are all equal: zero, kept with advantage 0 (GRPO's own rule, the tandem paper's baseline); drop, left out of the loss and its normalisation, as Agon's GRPO baseline does (Agon's summary: \"zero-variance groups are dropped\")",
    ),
  correctWeight: z.number().min(0).default(1).describe('reward of a correct final answer (GRPO: 1, correctness alone)'),
  formatWeight: z
    .number()
    .min(0)
    .default(0)
    .describe("reward added for a boxed answer, right or not (GRPO: 0; agon-vs-grpo gives its baseline Agon's correctness-and-format reward, 2 and 1, so that every arm is paid alike)"),
});

/** Vanilla GRPO, the tandem paper's baseline: the senior writes every token alone, with the same reward and loss. */
export function grpoGame(knobs: unknown, grade: Grader) {
  const { zeroVariance, correctWeight, formatWeight } = parseConfig(GrpoKnobsSchema, knobs ?? {}, 'grpo knobs');
  return defineGame<'senior', Problem>({
    id: 'grpo',
    roles: ['senior'],
    protocol: CoDecoding.solo('senior'),
    rewards: boxedAnswerReward(['senior'], grade, { weights: { correct: correctWeight, format: formatWeight } }),
    trainable: ['senior'],
    ...(zeroVariance === 'drop' ? { advantages: { senior: dropZeroVarianceGroups } } : {}),
  });
}
