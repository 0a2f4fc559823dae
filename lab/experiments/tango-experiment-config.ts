import { z } from 'zod';

/** The runs of RL Tango's Figure 4 (§4.3): Tango and its three baselines, each the tango game under one ablation. */
export const TANGO_ARMS = ['tango', 'grpo', 'fixed-verifier', 'fixed-generator'] as const;
export type TangoArm = (typeof TANGO_ARMS)[number];

/** The game's `ablation` knob of each arm. */
export const ARM_ABLATION: Record<TangoArm, 'none' | 'no-verifier' | 'fixed-verifier' | 'fixed-generator'> = {
  tango: 'none',
  grpo: 'no-verifier',
  'fixed-verifier': 'fixed-verifier',
  'fixed-generator': 'fixed-generator',
};

/** As the paper names them in Figure 4. */
export const ARM_LABELS: Record<TangoArm | 'base', string> = {
  base: 'base',
  tango: 'Tango',
  grpo: 'vanilla GRPO',
  'fixed-verifier': 'fixed verifier',
  'fixed-generator': 'fixed generator',
};

/**
 * The experiment's claims, each the one comparison of the design that isolates it, and its fixed Holm family in every
 * report, per seed and across seeds (docs/experiments/protocol.md). Generator claims compare greedy pass@1; verifier
 * claims each problem's share of right final verdicts on the base generator's solutions.
 */
export const TANGO_CLAIMS: readonly { readonly model: TangoArm; readonly other: TangoArm | 'base'; readonly on: 'generator' | 'verifier'; readonly claim: string }[] = [
  { model: 'tango', other: 'grpo', on: 'generator', claim: "Tango's generator beats vanilla GRPO's (the paper's headline)" },
  { model: 'fixed-verifier', other: 'grpo', on: 'generator', claim: 'Step rewards from a verifier help the generator' },
  { model: 'tango', other: 'fixed-verifier', on: 'generator', claim: 'Training the verifier alongside helps the generator' },
  { model: 'tango', other: 'base', on: 'verifier', claim: 'The verifier learns inside Tango' },
  { model: 'fixed-generator', other: 'base', on: 'verifier', claim: 'RL on outcome rewards alone improves the verifier' },
  { model: 'tango', other: 'fixed-generator', on: 'verifier', claim: 'Co-evolving improves the verifier beyond RL against a fixed generator' },
];

const positiveInt = z.number().int().positive();

/** Fields the experiment sets itself, one value for every arm. */
const OWN_FIELDS = ['game', 'steps', 'seed', 'model', 'task', 'knobs'] as const;

export const TangoExperimentConfigSchema = z
  .object({
    /**
     * Generator updates of every arm that trains the generator (matched generator steps; Figure 4 runs 200). Tango takes
     * its warm-up and verifier steps on top; the fixed-generator arm takes as many verifier updates as Tango's verifier.
     */
    generatorSteps: positiveInt.default(30),
    seed: z.number().int().min(0).max(2 ** 32 - 1).default(0),
    /** Training seeds, each a whole experiment in seed-<s>/, summarized across seeds (mean ± SE) in the top report; overrides `seed`. */
    seeds: z.array(z.number().int().min(0).max(2 ** 32 - 1)).min(1).optional(),
    /** Base model of both policies of every arm, or 'default': Tango's shipped base (models/arithmetic-judge) on arithmetic, as `ludus train tango` takes it, else the task's shipped base (models/last-letter on last-letter). */
    model: z.string().default('default'),
    task: z.string().default('last-letter'),
    /** Tango knobs shared by every arm (each arm sets its own `ablation`). */
    knobs: z.record(z.string(), z.unknown()).default({}).refine((knobs) => !('ablation' in knobs), { message: 'may not set ablation: each arm sets its own' }),
    /** Training config overrides shared by every arm (engine/trainer/train-config.ts). */
    train: z
      .record(z.string(), z.unknown())
      .default({})
      .refine((train) => OWN_FIELDS.every((field) => !(field in train)), { message: `may not set ${OWN_FIELDS.join(', ')}: the experiment sets them, one value for all arms` }),
    /** The final evaluation, on test problems every model sees with the same sampling seeds. */
    eval: z
      .strictObject({
        problems: positiveInt.default(100),
        /** Solutions per problem for each generator's pass@1 (greedy: 1 is all it takes, every sample is the same). */
        samples: positiveInt.default(1),
        /** The generators' decoding temperature; 0 is greedy, as the paper evaluates every model (§4: "evaluated via greedy decoding, reporting zero-shot pass@1"). */
        temperature: z.number().min(0).default(0),
        /**
         * Matches per problem for each verifier's F1: with greedy verdicts (`verifierTemperature` 0) this many solutions,
         * each judged once; at a temperature above 0 one solution judged this many times, the paper's M (its 5 rollouts
         * per prompt, §4, at `verifierTemperature` 1).
         */
        verifierSamples: positiveInt.default(1),
        /** The verifiers' decoding temperature: 0, greedy, as the paper evaluates every model (§4.1: "evaluated via greedy decoding"). */
        verifierTemperature: z.number().min(0).default(0),
        /** The temperature the judged solutions are sampled at: the paper's rollout temperature (appendix B.1: 1.0), so the verifiers judge the mix of right and wrong work they trained on. */
        solutionTemperature: z.number().min(0).default(1),
        batch: positiveInt.default(32),
        bootstrap: positiveInt.default(10_000),
      })
      .prefault({}),
  })
  .strict();

export type TangoExperimentConfig = z.output<typeof TangoExperimentConfigSchema>;
export type TangoExperimentConfigInput = z.input<typeof TangoExperimentConfigSchema>;
