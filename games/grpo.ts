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
});

/** Vanilla GRPO, the tandem paper's baseline: the senior writes every token alone, with the same reward and loss. */
export function grpoGame(knobs: unknown, grade: Grader) {
  const { zeroVariance } = parseConfig(GrpoKnobsSchema, knobs ?? {}, 'grpo knobs');
  return defineGame<'senior', Problem>({
    id: 'grpo',
    roles: ['senior'],
    protocol: CoDecoding.solo('senior'),
    rewards: boxedAnswerReward(['senior'], grade),
    trainable: ['senior'],
    ...(zeroVariance === 'drop' ? { advantages: { senior: dropZeroVarianceGroups } } : {}),
  });
}
