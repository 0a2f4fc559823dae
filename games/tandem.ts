import { z } from 'zod';
import { defineGame } from '../core/game/define-game.ts';
import { DEFAULT_HEADLINE } from '../core/game/headline.ts';
import type { Grader } from '../core/grading/verdict.ts';
import { parseConfig } from '../core/parse-config.ts';
import { CoDecoding, WORD_HANDOFF_DEFAULTS } from '../core/protocols/co-decoding.ts';
import type { Problem } from '../core/tasks/task.ts';
import { boxedAnswerReward } from '../plugins/rewards/boxed-answer-reward.ts';

/**
 * The senior's share of a step's tokens must lie in this band (ours: the paper gives none). p = 0.5 over tens of
 * words puts it near 0.5; the band only catches a schedule that collapsed (a senior writing all or none).
 */
export const TANDEM_SHARE_BAND = [0.05, 0.95] as const;

export const TandemKnobsSchema = z.strictObject({
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

/**
 * Tandem RL (Jiao et al.): a trainable senior and a frozen junior, both the same base at the start, co-write one
 * answer, the author redrawn by Bernoulli(p) at every word-initial token; the team gets the binary boxed-answer
 * reward and only the senior's tokens get GRPO gradient.
 */
export function tandemGame(knobs: unknown, grade: Grader) {
  const { p, K, shareBand, juniorImitation } = parseConfig(TandemKnobsSchema, knobs ?? {}, 'tandem knobs');
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
