import { defineGame } from '../core/game/define-game.ts';
import { Rotations } from '../core/game/rotations.ts';
import { CoDecoding } from '../core/protocols/co-decoding.ts';
import type { Grader } from '../core/grading/verdict.ts';
import { gradeMath } from '../plugins/graders/math/grade-math.ts';
import type { Problem } from '../core/tasks/task.ts';
import type { RlGame, RlKnobs } from '../core/game/rl-game.ts';
import { boxedAnswerReward } from '../plugins/rewards/boxed-answer-reward.ts';

/** Vanilla GRPO, the tandem paper's baseline: the senior writes every token alone, with the same reward and loss. */
export function grpoGame(grade: Grader = gradeMath): RlGame<'senior'> {
  return defineGame<'senior', Problem, RlKnobs>({
    id: 'grpo',
    roles: ['senior'],
    protocol: CoDecoding.solo('senior'),
    rewards: boxedAnswerReward(['senior'], grade),
    rotation: Rotations.fixed(['senior']),
    trainable: ['senior'],
    shareBand: [1, 1],
    klToJunior: 0,
    juniorImitation: 0,
    grade,
  });
}
