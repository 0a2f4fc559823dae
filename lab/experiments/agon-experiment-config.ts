import { z } from 'zod';

/**
 * The trained runs of Agon's comparison and ablations (§5): Agon, its three ablations (each the agon game under one
 * knob) and vanilla GRPO, every one trained from one base with the same settings and seeds.
 */
export const AGON_ARMS = ['agon', 'fixed-roles', 'cooperative', 'self-refinement', 'grpo'] as const;
export type AgonArm = (typeof AGON_ARMS)[number];

/** The agon knobs each ablation sets (§5: fixed roles 52 vs 61; cooperative exchange 30 vs competition 32; self-refinement). */
export const ARM_KNOBS: Record<Exclude<AgonArm, 'grpo'>, Record<string, unknown>> = {
  agon: {},
  'fixed-roles': { fixedRoles: true },
  cooperative: { conversionBonus: 0 },
  'self-refinement': { pairing: 'self' },
};

/** Every model evaluated: the base and GRPO alone, and the cascades. */
export const AGON_ROWS = ['base', 'grpo', 'base-cascade', 'moa', 'grpo-cascade', 'agon', 'agon-reversed', 'fixed-roles', 'cooperative', 'self-refinement'] as const;
export type AgonRow = (typeof AGON_ROWS)[number];

/** The trained run each row reads its policies from (none: the untrained base). */
export const ROW_ARM: Record<AgonRow, AgonArm | null> = {
  base: null,
  grpo: 'grpo',
  'base-cascade': null,
  moa: null,
  'grpo-cascade': 'grpo',
  agon: 'agon',
  'agon-reversed': 'agon',
  'fixed-roles': 'fixed-roles',
  cooperative: 'cooperative',
  'self-refinement': 'self-refinement',
};

/** The runs with two adapters A and B, whose answers on the same seeds are compared (do the pair behave differently?). */
export const PAIRED_ARMS = ['agon', 'fixed-roles', 'cooperative'] as const satisfies readonly AgonArm[];

export const ROW_LABELS: Record<AgonRow, string> = {
  base: 'base (one pass)',
  grpo: 'vanilla GRPO (one pass)',
  'base-cascade': 'base → base (untrained two-pass cascade)',
  moa: 'Mixture-of-Agents (untrained)',
  'grpo-cascade': 'GRPO → GRPO (its own draft)',
  agon: 'Agon cascade A → B',
  'agon-reversed': 'Agon cascade B → A',
  'fixed-roles': 'fixed roles A → B',
  cooperative: 'cooperative exchange A → B',
  'self-refinement': 'self-refinement A → A',
};

/**
 * The experiment's claims, each the one comparison of the design that isolates it, and its fixed Holm family in every
 * report, per seed and across seeds (docs/experiments/protocol.md). `k` is the other side's pass@k against the model's
 * pass@1 (2: a one-pass baseline at the cascade's two generations); `converted`: each problem's share of answers turning
 * a wrong draft right; `training`: conversions per wrong draft in the training matches, step by step.
 */
export const AGON_CLAIMS: readonly { readonly model: AgonRow; readonly other: AgonRow; readonly k: number; readonly metric: 'pass' | 'converted' | 'training'; readonly claim: string }[] = [
  { model: 'agon', other: 'grpo', k: 1, metric: 'pass', claim: 'Agon beats vanilla GRPO per answer' },
  { model: 'agon', other: 'grpo', k: 2, metric: 'pass', claim: 'Agon beats vanilla GRPO at the same number of generations' },
  { model: 'agon', other: 'fixed-roles', k: 1, metric: 'pass', claim: 'Rotating roles helps (§5: 61 vs 52)' },
  { model: 'agon', other: 'cooperative', k: 1, metric: 'pass', claim: 'Competition helps (§5: 32 vs 30)' },
  { model: 'agon', other: 'cooperative', k: 1, metric: 'converted', claim: 'The conversion bonus raises conversions at test time (§4)' },
  { model: 'agon', other: 'cooperative', k: 1, metric: 'training', claim: 'The conversion bonus raises conversions in training (§4)' },
  { model: 'agon', other: 'self-refinement', k: 1, metric: 'pass', claim: 'Exchange across two policies beats self-refinement' },
  { model: 'agon', other: 'moa', k: 1, metric: 'pass', claim: 'Training beats an untrained Mixture-of-Agents' },
  { model: 'agon', other: 'base-cascade', k: 1, metric: 'pass', claim: "Training beats the untrained base → base cascade (Agon's cascade against its base)" },
];

const positiveInt = z.number().int().positive();

/** Fields the experiment sets itself, one value for every run. */
const OWN_FIELDS = ['game', 'steps', 'seed', 'model', 'task', 'knobs', 'policies'] as const;
/** Knobs the arms set, one each. */
const ARM_FIELDS = ['fixedRoles', 'conversionBonus', 'pairing', 'proposals'] as const;

export const AgonExperimentConfigSchema = z
  .object({
    /** Optimizer steps of every run: each Agon adapter and the GRPO adapter take one update per step (ours: 20, sized to the shipped base on two cores). */
    steps: positiveInt.default(20),
    seed: z.number().int().min(0).max(2 ** 32 - 1).default(0),
    /** Training seeds, each a whole experiment in seed-<s>/, summarized across seeds (mean ± SE) in the top report; overrides `seed`. */
    seeds: z.array(z.number().int().min(0).max(2 ** 32 - 1)).min(1).optional(),
    /**
     * The runs trained, in AGON_ARMS order whatever the order given (default: all five); a row whose run is not trained
     * is not evaluated, the untrained base's rows always are. Ours: a smaller design, e.g. Agon against its cooperative
     * ablation alone, costs a fraction of the whole on a small machine.
     */
    arms: z
      .array(z.enum(AGON_ARMS))
      .min(1)
      .refine((arms) => new Set(arms).size === arms.length, { message: 'lists a run twice' })
      .default([...AGON_ARMS])
      .transform((arms) => AGON_ARMS.filter((arm) => arms.includes(arm))),
    /** The frozen base under every adapter, or 'default': Agon's shipped base (models/arithmetic-judge) on arithmetic, as `ludus train agon` takes it, else the task's shipped base. */
    model: z.string().default('default'),
    task: z.string().default('arithmetic'),
    /** Agon knobs shared by every Agon run (turnTokens, challengeLayout, ...); the arms set their own ablation knob. */
    knobs: z
      .record(z.string(), z.unknown())
      .default({})
      .refine((knobs) => ARM_FIELDS.every((field) => !(field in knobs)), { message: `may not set ${ARM_FIELDS.join(', ')}: each arm sets its own` }),
    /** Training config overrides shared by every run (engine/trainer/train-config.ts). */
    train: z
      .record(z.string(), z.unknown())
      .default({})
      .refine((train) => OWN_FIELDS.every((field) => !(field in train)), { message: `may not set ${OWN_FIELDS.join(', ')}: the experiment sets them, one value for all runs` }),
    /**
     * Proposals of the untrained Mixture-of-Agents baseline, each a draft by the base, aggregated by a last base pass
     * (the paper names the baseline, §1, §5, but not its size; ours: 2, one pass over the cascade's two). With 1 it is
     * the base → base cascade, which the report shows beside it at the matched two-pass budget.
     */
    moaProposals: positiveInt.max(8).default(2),
    /**
     * What the vanilla GRPO baseline is paid. 'matched' (ours, the default since 2026-12-07): Agon's correctness-and-format
     * reward, the agon knobs' correctWeight · correct + formatWeight · a box present (2 and 1 by default), so the baseline
     * differs from the Agon arms in the game alone; 'correctness': 1 when right, else 0, vanilla GRPO's own and what every
     * run before that date paid it.
     */
    grpoReward: z.enum(['matched', 'correctness']).default('matched'),
    /** The final evaluation: test problems every model sees with the same sampling seeds. */
    eval: z
      .strictObject({
        problems: positiveInt.default(100),
        /** Answers per problem (n of pass@k). */
        samples: positiveInt.default(4),
        /** Sampling temperature of every evaluated generation; 0 is greedy. */
        temperature: z.number().min(0).default(1),
        /** Problems played together. */
        batch: positiveInt.default(16),
        bootstrap: positiveInt.default(10_000),
      })
      .prefault({}),
  })
  .strict();

export type AgonExperimentConfig = z.output<typeof AgonExperimentConfigSchema>;
export type AgonExperimentConfigInput = z.input<typeof AgonExperimentConfigSchema>;
