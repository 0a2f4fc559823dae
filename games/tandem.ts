import { z } from 'zod';
import { defineGame } from '../core/game/define-game.ts';
import { DEFAULT_HEADLINE } from '../core/game/headline.ts';
import type { Grader } from '../core/grading/verdict.ts';
import { parseConfig } from '../core/parse-config.ts';
import { fail } from '../core/errors.ts';
import { CoDecoding, WORD_HANDOFF_DEFAULTS } from '../core/protocols/co-decoding.ts';
import type { SequentialProtocol, TurnSpec } from '../core/protocols/sequential.ts';
import { TurnOrder } from '../core/protocols/turn-order.ts';
import type { Problem } from '../core/tasks/task.ts';
import { boxedAnswerReward } from '../plugins/rewards/boxed-answer-reward.ts';

/**
 * The senior's share of a step's tokens must lie in this band (ours: the paper gives none). p = 0.5 over tens of
 * words puts it near 0.5; the band only catches a schedule that collapsed (a senior writing all or none).
 */
export const TANDEM_SHARE_BAND = [0.05, 0.95] as const;

/** Where a step ends when the partners take turns a step each (the paper's reasoning-step boundary, §4.3). */
export const TANDEM_STEP_END = '\n\n';

export const TandemKnobsSchema = z.strictObject({
  handoff: z
    .enum(['word', 'step'])
    .default('word')
    .describe(
      'word: the author redrawn at every word-initial token, one co-written turn (§3.3); step: the senior and the junior take turns, each writing one reasoning step (up to "\\n\\n") as a whole turn, the senior first — the paper\'s evaluation schedule (§4.3) used for training (ours; the paper warns a senior can then hold the pen by not ending steps); the only handoff a partner behind an endpoint can play',
    ),
  stepTokens: z.number().int().positive().default(56).describe('handoff step: the token budget of one step (ours: four steps fill the co-decoded budget of 224)'),
  maxSteps: z.number().int().positive().default(4).describe('handoff step: the steps of a match at most, both partners together (ours)'),
  p: z.number().min(0).max(1).default(WORD_HANDOFF_DEFAULTS.p).describe('probability of drawing the senior at each word-boundary redraw (§3.3: 0.5)'),
  K: z.number().int().min(0).default(WORD_HANDOFF_DEFAULTS.K).describe('subword-span cap: redraw the author after K tokens without a word boundary (appendix A.1.2: 32)'),
  shareBand: z
    .tuple([z.number().min(0).max(1), z.number().min(0).max(1)])
    .default([...TANDEM_SHARE_BAND])
    .describe("the senior's share of a step's tokens must stay in [min, max], else the run fails closed (ours: the paper gives none)"),
  juniorImitation: z
    .number()
    .min(0)
    .default(0)
    .describe("λ_jun: weight of a term −log π_sen(y_t) on the junior's tokens, the original tandem objective (§3.4: 0, which keeps the loss exactly GRPO's)"),
});

export type TandemKnobs = z.input<typeof TandemKnobsSchema>;

/** The knobs each handoff reads alone: naming one under the other handoff is refused, not ignored. */
const WORD_ONLY: readonly string[] = ['p', 'K', 'shareBand', 'juniorImitation'];
const STEP_ONLY: readonly string[] = ['stepTokens', 'maxSteps'];

/**
 * Tandem RL (Jiao et al.): a trainable senior and a frozen junior, both the same base at the start, co-write one
 * answer, the author redrawn by Bernoulli(p) at every word-initial token; the team gets the binary boxed-answer
 * reward and only the senior's tokens get GRPO gradient.
 */
export function tandemGame(knobs: unknown, grade: Grader) {
  const { handoff, stepTokens, maxSteps, p, K, shareBand, juniorImitation } = parseConfig(TandemKnobsSchema, knobs ?? {}, 'tandem knobs');
  const given = Object.keys(knobs ?? {});
  const stray = given.filter((knob) => (handoff === 'step' ? WORD_ONLY : STEP_ONLY).includes(knob));
  if (stray.length > 0) {
    const why = handoff === 'step' ? 'shape(s) the co-written turn of word handoff; with handoff "step" each partner writes whole turns of its own' : 'shape(s) handoff "step" only';
    fail('CONFIG_INVALID', `tandem knobs: ${stray.join(', ')} ${why}`, { field: stray[0] });
  }
  if (handoff === 'step') return stepTandem(grade, stepTokens, maxSteps);
  return defineGame<'senior' | 'junior', Problem>({
    id: 'tandem',
    roles: ['senior', 'junior'],
    protocol: CoDecoding.wordHandoff({ senior: 'senior', junior: 'junior', p, K, shareBand }),
    rewards: boxedAnswerReward(['senior', 'junior'], grade),
    trainable: ['senior'],
    headline: [...DEFAULT_HEADLINE, 'role/*/share'],
    ...(juniorImitation > 0 ? { losses: { senior: { imitate: { role: 'junior', weight: juniorImitation } } } } : {}),
  });
}

/**
 * Tandem with step handoff: the senior and the junior write one answer in turns, a reasoning step each, every turn a
 * whole generation from the problem and the steps so far, stopped at the step end. The match ends at a step that ends
 * otherwise (the answer's end, the step's budget) or after `maxSteps`; the joined steps are graded as one answer, both
 * paid alike, the senior alone trained. A junior here needs no log-probability of a token it did not write, so it may
 * be a model behind an endpoint.
 */
function stepTandem(grade: Grader, stepTokens: number, maxSteps: number) {
  const step = (role: 'senior' | 'junior'): TurnSpec<'senior' | 'junior', Problem> => ({
    role,
    template: (earlier, problem) => problem.prompt + earlier.map((turn) => turn.text).join(''),
    maxTokens: stepTokens,
    stop: [TANDEM_STEP_END],
  });
  const protocol: SequentialProtocol<'senior' | 'junior', Problem> = { family: 'sequential', name: 'step-turns', turns: [step('senior'), step('junior')], order: TurnOrder.STEPS(maxSteps) };
  return defineGame<'senior' | 'junior', Problem>({
    id: 'tandem',
    roles: ['senior', 'junior'],
    protocol,
    rewards: boxedAnswerReward(['senior', 'junior'], grade, { read: 'joined' }),
    trainable: ['senior'],
  });
}
