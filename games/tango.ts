import { z } from 'zod';
import { ALPHA_SCHEDULES, alphaAt } from '../core/advantages/alpha-schedule.ts';
import { classWeighted } from '../core/advantages/class-weights.ts';
import type { AdvantageEstimator } from '../core/advantages/estimator.ts';
import { blendStepAdvantages } from '../core/advantages/step-blend.ts';
import { defineGame, type LossTerms } from '../core/game/define-game.ts';
import { DEFAULT_HEADLINE } from '../core/game/headline.ts';
import { Rotations, updatesOf, type Rotation } from '../core/game/rotations.ts';
import type { Grader } from '../core/grading/verdict.ts';
import { parseConfig } from '../core/parse-config.ts';
import type { SequentialProtocol, TurnSpec } from '../core/protocols/sequential.ts';
import type { Problem } from '../core/tasks/task.ts';
import { SOLUTION_CORRECT_LABEL, tangoReward, type TangoRole } from '../plugins/rewards/tango-reward.ts';
import { FORMAT_PENALTY } from '../plugins/verdicts/format-score.ts';
import { solutionSteps, verifierPrompt } from '../plugins/verdicts/verifier-prompt.ts';

/** The paper's Figure 4 runs: Tango, and its ablations as knobs of the same game. */
export const TANGO_ABLATIONS = ['none', 'fixed-generator', 'fixed-verifier', 'no-verifier'] as const;

export const TangoKnobsSchema = z.strictObject({
  ablation: z
    .enum(TANGO_ABLATIONS)
    .default('none')
    .describe('none: Tango; fixed-generator: only the verifier learns; fixed-verifier: only the generator, with step rewards from the frozen verifier; no-verifier: vanilla GRPO on the outcome reward, no verifier turn (§4.3, Figure 4)'),
  generatorSteps: z.number().int().positive().default(3).describe('N_g, generator updates per cycle (§4: 3)'),
  verifierSteps: z.number().int().positive().default(1).describe('N_v, verifier updates per cycle (§4: 1)'),
  verifierWarmup: z.number().int().min(0).default(40).describe('steps at the start in which only the verifier learns (§4: "we warm up the verifier for 40 steps")'),
  formatWeight: z.number().min(0).default(0.8).describe("γ, weight of the format score in the verifier's reward (§4: 0.8)"),
  formatPenalty: z.number().min(0).max(1).default(FORMAT_PENALTY).describe('what each unmet formatting criterion takes off the format score (ours: five criteria of 0.2)'),
  alpha: z
    .strictObject({
      schedule: z.enum(ALPHA_SCHEDULES).default('exponential').describe("α's schedule (§3.2: exponential decay, \"essential to Tango's success\"; linear and cosine as the authors' code offers)"),
      start: z.number().gt(0).lt(1).optional().describe("α at the first generator update (§4: 0.1 for GRPO and RLOO, 0.5 for REINFORCE++); absent, chosen by the run's estimator"),
      end: z.number().gt(0).lt(1).default(1e-3).describe("α's floor, reached at the last generator update (§4: 1e-3)"),
    })
    .prefault({})
    .describe("α, the weight of the step advantages in the blend (1−α)·outcome + α·step (§3.2): schedule (exponential, §3.2; linear, cosine), start (§4: 0.1 under GRPO and RLOO, 0.5 under REINFORCE++, by the run's estimator when absent), end (§4: 1e-3)"),
  stepNormalization: z
    .enum(['group', 'batch'])
    .optional()
    .describe("scope of the step-reward normalisation: each group's steps together (§3.2, Eq. 5) or the whole batch's; absent, batch under the batch-baselined REINFORCE++ and group otherwise (ours)"),
  classWeights: z.boolean().default(true).describe("class-aware reweighting of the verifier's advantages by the EMA of correct / incorrect solutions (§3.2, Eq. 9)"),
  classWeightDecay: z.number().min(0).lt(1).default(0.8).describe("the class weights' EMA decay (appendix B.1: 0.8)"),
  klBeta: z.number().min(0).default(0.001).describe('β of the k3 KL toward each policy\'s own start (appendix B.1: "We set the KL loss coefficient β to 0.001")'),
  entropyCoef: z.number().min(0).default(0.001).describe("entropy bonus (the authors' run script: 0.001 under GRPO and RLOO; the paper's text names none)"),
  generatorTokens: z.number().int().positive().default(768).describe("the generator's token budget (ours: the longest gold solutions of last-letter's test problems are about 680 tokens in the shipped base's vocabulary)"),
  verifierTokens: z.number().int().positive().default(384).describe("the verifier's token budget (ours)"),
});

export type TangoKnobs = z.input<typeof TangoKnobsSchema>;

const SEATS = { generator: 'generator', verifier: 'verifier' } as const;

/** Who learns when: the verifier warms up alone, then N_g generator steps and N_v verifier steps in turn (Algorithm 1). */
function tangoRotation(knobs: z.output<typeof TangoKnobsSchema>): Rotation<TangoRole> {
  switch (knobs.ablation) {
    case 'none':
      return Rotations.warmup(
        { steps: knobs.verifierWarmup, trains: ['verifier'] },
        Rotations.interleave<TangoRole>(SEATS, [
          { policy: 'generator', steps: knobs.generatorSteps },
          { policy: 'verifier', steps: knobs.verifierSteps },
        ]),
      );
    case 'fixed-generator':
      return Rotations.fixed<TangoRole>(SEATS, ['verifier']);
    case 'fixed-verifier':
    case 'no-verifier':
      return Rotations.fixed<TangoRole>(SEATS, ['generator']);
  }
}

const isReinforce = (estimator: AdvantageEstimator) => estimator.name.startsWith('reinforce++');

/**
 * RL Tango (Zha et al., 2025): a generator writes a step-by-step solution; a generative verifier, reading the problem
 * and those steps but never the gold answer, judges every step and the whole. Both are trained by RL, interleaved: the
 * generator on the gold outcome reward blended with the verifier's step rewards (advantages normalised apart, α
 * decaying), the verifier on the correctness of its final verdict plus γ·format, reweighted by class.
 */
export function tangoGame(knobs: unknown, grade: Grader) {
  const k = parseConfig(TangoKnobsSchema, knobs ?? {}, 'tango knobs');
  const rotation = tangoRotation(k);
  const judged = k.ablation !== 'no-verifier';
  const trainable: TangoRole[] = k.ablation === 'fixed-generator' ? ['verifier'] : judged && k.ablation === 'none' ? ['generator', 'verifier'] : ['generator'];
  const solve: TurnSpec<TangoRole, Problem> = { role: 'generator', template: (_, problem) => problem.prompt, maxTokens: k.generatorTokens };
  const verify: TurnSpec<TangoRole, Problem> = { role: 'verifier', template: ([solution], problem) => verifierPrompt(problem.prompt, solutionSteps(solution.text)), maxTokens: k.verifierTokens };
  const protocol: SequentialProtocol<TangoRole, Problem> = { family: 'sequential', name: judged ? 'solve-then-verify' : 'solve', turns: judged ? [solve, verify] : [solve] };
  const blend = (base: AdvantageEstimator) => {
    const schedule = { kind: k.alpha.schedule, start: k.alpha.start ?? (isReinforce(base) ? 0.5 : 0.1), end: k.alpha.end };
    return blendStepAdvantages(base, {
      // α's clock is the generator's own updates (the authors' code counts generator update steps).
      alpha: ({ step, totalSteps }) => alphaAt(schedule, updatesOf(rotation, 'generator', step), Math.max(1, updatesOf(rotation, 'generator', totalSteps))),
      normalization: k.stepNormalization ?? (isReinforce(base) ? 'batch' : 'group'),
    });
  };
  const terms: LossTerms<TangoRole> = { kl: { toward: 'initial', beta: k.klBeta }, entropy: { coef: k.entropyCoef } };
  return defineGame<TangoRole, Problem>({
    id: 'tango',
    roles: ['generator', 'verifier'],
    protocol,
    rewards: tangoReward({ grade, formatWeight: k.formatWeight, formatPenalty: k.formatPenalty }),
    rotation,
    trainable,
    losses: Object.fromEntries(trainable.map((role) => [role, terms])),
    advantages: {
      ...(trainable.includes('generator') && judged ? { generator: blend } : {}),
      ...(trainable.includes('verifier') && k.classWeights ? { verifier: (base: AdvantageEstimator) => classWeighted(base, { label: SOLUTION_CORRECT_LABEL, decay: k.classWeightDecay }) } : {}),
    },
    // The verifier's steps judge one solution per prompt several times (Algorithm 1: M verification rollouts of one o_g).
    sharedTurns: (step) => (step.trains.includes('verifier') ? 1 : 0),
    validateOn: 'generator',
    defaultModel: 'arithmetic-judge',
    headline: [...DEFAULT_HEADLINE, 'role/verifier/outcome_f1', 'role/verifier/step_f1'],
  });
}
