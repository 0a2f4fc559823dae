import { z } from 'zod';
import { defineGame } from '../core/game/define-game.ts';
import type { Grader } from '../core/grading/verdict.ts';
import { parseConfig } from '../core/parse-config.ts';
import { CoDecoding } from '../core/protocols/co-decoding.ts';
import type { Problem } from '../core/tasks/task.ts';
import { boxedAnswerReward } from '../plugins/rewards/boxed-answer-reward.ts';

/** Vanilla GRPO, the tandem paper's baseline: the senior writes every token alone, with the same reward and loss. */
export function grpoGame(knobs: unknown, grade: Grader) {
  parseConfig(z.strictObject({}), knobs ?? {}, 'grpo knobs');
  return defineGame<'senior', Problem>({
    id: 'grpo',
    roles: ['senior'],
    protocol: CoDecoding.solo('senior'),
    rewards: boxedAnswerReward(['senior'], grade),
    trainable: ['senior'],
  });
}
