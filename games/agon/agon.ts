import { z } from 'zod';
import { dropZeroVarianceGroups } from '../../core/advantages/drop-zero-variance.ts';
import { defineGame } from '../../core/game/define-game.ts';
import type { MatchState } from '../../core/game/match-state.ts';
import { Rotations } from '../../core/game/rotations.ts';
import { GRADER_JUDGE, type Grader } from '../../core/grading/verdict.ts';
import { parseConfig } from '../../core/parse-config.ts';
import type { Problem } from '../../core/tasks/task.ts';
import { challengePrompt, withheldSummary } from '../../plugins/protocols/draft-challenge.ts';

export { challengePrompt };

export type AgonRole = 'drafter' | 'challenger';

export const AgonKnobsSchema = z.strictObject({
  /** Weight of a correct final answer (Agon §4, "Competitive reward": 2). */
  correctWeight: z.number().min(0).default(2).describe('weight of a correct final answer (Agon §4: 2)'),
  /**
   * Added to the challenger's correctness weight when its paired draft is wrong (Agon §4: the conversion bonus raises the
   * weight from 2 to 3). 0 is the cooperative-exchange ablation (§5: exchange without competition).
   */
  conversionBonus: z.number().min(0).default(1).describe("added to the challenger's correctness weight when its paired draft is wrong (Agon §4: 2 → 3); 0: the cooperative-exchange ablation"),
  /** Weight of a well-formed answer (a box present), the "format" of "correctness-and-format rewards" (§4); ours: 1, the paper gives none. */
  formatWeight: z.number().min(0).default(1).describe('weight of a well-formed answer, a box present (ours: the paper gives none)'),
  /** Keep the roles fixed, A drafting and B challenging at every step: the fixed-roles ablation (§5: 52 vs 61 pass@1). */
  fixedRoles: z.boolean().default(false).describe('A always drafts and B always challenges: the fixed-roles ablation (Agon §5)'),
  /** 'rivals': two policies (the game); 'self': one policy challenges its own draft (the self-refinement baseline, §5). */
  pairing: z.enum(['rivals', 'self']).default('rivals').describe('rivals: two policies; self: one policy challenges its own draft (the self-refinement baseline, Agon §5)'),
  /** Token cap of each turn, the same for draft and challenge (§4: generation count and length caps matched); ours: 128. */
  turnTokens: z.number().int().positive().default(128).describe('token cap of each turn, the same for draft and challenge (Agon §4 matches caps; ours: 128)'),
  /** How the challenger's prompt holds the summary (see challengePrompt); 'context', as the paper's chat models read it. */
  challengeLayout: z
    .enum(['context', 'continue'])
    .default('context')
    .describe("the challenger's prompt: read the summary as context before the plain prompt, then answer (Agon §4: the paper's chat models read it so), or, ours, continue the summary as the start of its answer"),
  /** Also mask every standalone mention of the withheld answer in the summary (ours: see withheldSummary). */
  maskMentions: z.boolean().default(true).describe('also mask every standalone mention of the withheld answer in the summary (ours)'),
  /**
   * The policies as LoRA adapters over one frozen base (§4, "Efficient instantiation"; rank 16), or, false, two full
   * copies (an option for tiny models). A run config's `policies` entries override either.
   */
  adapters: z.boolean().default(true).describe('A and B as LoRA adapters (r = 16) over one frozen base (Agon §4); false: two full copies'),
  /**
   * Std of each adapter's B at initialization, so the two start behaviourally different (§4 asks for a divergent pair;
   * with PEFT's B = 0 both would start as the base); each adapter's seed differs. Ours: 0.02.
   */
  adapterInitStdB: z.number().min(0).default(0.02).describe("std of each adapter's B at init, so the pair starts behaviourally different (ours: 0.02)"),
  /**
   * Drafting turns before the challenge. 1: Agon's cascade (§4). More: the untrained Mixture-of-Agents baseline's
   * proposer layer (§2, §5: "an untrained Mixture-of-Agents pass over the same base"), whose last pass aggregates every
   * proposal's summary; the paper gives no proposal count (ours: 1, and the MoA baseline's own default is set where it is run).
   */
  proposals: z.number().int().min(1).max(8).default(1).describe("drafting turns before the challenge; more than 1: the Mixture-of-Agents baseline's proposals, aggregated by the last pass (ours: 1)"),
});

export type AgonKnobs = z.input<typeof AgonKnobsSchema>;


/**
 * The last pass's prompt over several drafts (the Mixture-of-Agents aggregation): every draft but the last as context
 * under its own header, then the last as `challengePrompt` lays out one draft. With one draft, `challengePrompt`.
 */
export function aggregatePrompt(summaries: readonly string[], problem: Problem, layout: 'context' | 'continue'): string {
  const last = challengePrompt(summaries[summaries.length - 1] ?? '', problem, layout);
  const earlier = summaries.slice(0, -1).map((summary, i) => `Proposal ${i + 1}, its final answer withheld:\n${summary}\n\n`);
  return `${earlier.join('')}${last}`;
}

/**
 * Agon (Beliaev): two policies on one frozen base take turns drafting and challenging. The drafter solves from the plain
 * prompt; the challenger reads the draft's summary with its final answer withheld (the view), answers, and is paid a
 * conversion bonus when it solves what the draft got wrong. Roles swap every step; zero-variance groups are dropped.
 */
export function agonGame(knobs: unknown, grade: Grader) {
  const k = parseConfig(AgonKnobsSchema, knobs ?? {}, 'agon knobs');
  const policies = k.pairing === 'self' ? ['A'] : ['A', 'B'];
  const rotation =
    k.pairing === 'self'
      ? Rotations.fixed<AgonRole>({ drafter: 'A', challenger: 'A' }, ['A'])
      : k.fixedRoles
        ? Rotations.fixed<AgonRole>({ drafter: 'A', challenger: 'B' }, ['A', 'B'])
        : Rotations.alternateEveryStep<AgonRole>(['drafter', 'challenger'], ['A', 'B']);
  const summaryOf = (text: string) => withheldSummary(text, { maskMentions: k.maskMentions });
  return defineGame<AgonRole, Problem, { readonly knobs: z.output<typeof AgonKnobsSchema> }>({
    id: 'agon',
    roles: ['drafter', 'challenger'],
    policies,
    protocol: {
      family: 'sequential',
      name: 'draft-then-challenge',
      turns: [
        ...Array.from({ length: k.proposals }, () => ({ role: 'drafter' as const, template: (_: unknown, problem: Problem) => problem.prompt, maxTokens: k.turnTokens })),
        { role: 'challenger', template: (drafts, problem) => aggregatePrompt(drafts.map((draft) => draft.text), problem, k.challengeLayout), maxTokens: k.turnTokens },
      ],
    },
    view: agonView(summaryOf),
    rewards: ({ problem, transcript }) => {
      const drafts = transcript.filter((turn) => turn.role === 'drafter');
      const challenge = transcript.find((turn) => turn.role === 'challenger');
      const ds = drafts.map((draft) => grade(problem.answer, draft.text));
      const c = grade(problem.answer, challenge?.text ?? '');
      // With several proposals (MoA), the drafter is paid their mean and the bonus is for solving what none solved.
      const draftCorrect = ds.some((d) => d.correct);
      const weight = k.correctWeight + (draftCorrect ? 0 : k.conversionBonus);
      const drafterOutcome = ds.reduce((a, d) => a + k.correctWeight * Number(d.correct) + k.formatWeight * Number(d.answer_present), 0) / Math.max(1, ds.length);
      return {
        outcome: {
          drafter: drafterOutcome,
          challenger: weight * Number(c.correct) + k.formatWeight * Number(c.answer_present),
        },
        labels: { challenger: { draft_correct: Number(draftCorrect), converted: Number(!draftCorrect && c.correct) } },
        verdicts: [
          ...ds.map((d, i) => ({ role: 'drafter' as const, judge: GRADER_JUDGE, turn: drafts[i].turn, answer_present: d.answer_present, correct: d.correct })),
          { role: 'challenger', judge: GRADER_JUDGE, turn: challenge?.turn ?? k.proposals, answer_present: c.answer_present, correct: c.correct },
        ],
      };
    },
    rotation,
    trainable: ['drafter', 'challenger'],
    advantages: { drafter: dropZeroVarianceGroups, challenger: dropZeroVarianceGroups },
    validateOn: 'challenger',
    defaultModel: 'arithmetic-judge',
    ...(k.adapters ? { policyDefaults: Object.fromEntries(policies.map((name) => [name, { adapter: { r: 16, initStdB: k.adapterInitStdB } }])) } : {}),
    knobs: k,
  });
}

/**
 * What each seat sees of the draft. The challenger: the summary alone, its final answer withheld, no draft tokens. The
 * drafter (who plays first) and spectators: the whole draft, spectators with the summary and the withheld answer as
 * the draft turn's secret, so the viewer can mark what the challenger did not see.
 */
function agonView(summaryOf: (text: string) => { summary: string; answer: string | null }) {
  return (state: MatchState<AgonRole, Problem>, viewer: AgonRole | null): MatchState<AgonRole, Problem> => ({
    ...state,
    transcript: state.transcript.map((turn) => {
      const { secret: _secret, ...record } = turn;
      if (turn.role !== 'drafter') return record;
      const { summary, answer } = summaryOf(turn.text);
      if (viewer === 'challenger') return { turn: record.turn, role: record.role, tokens: [], text: summary, ...(record.finish ? { finish: record.finish } : {}) };
      return viewer === null ? { ...record, secret: { summary, withheld: answer } } : record;
    }),
  });
}
