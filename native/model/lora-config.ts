import { z } from 'zod';
import { parseConfig } from '../../core/parse-config.ts';

/** The projections an adapter may wrap, by PEFT's module names. */
export const LORA_TARGETS = ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'] as const;
export type LoraTarget = (typeof LORA_TARGETS)[number];

/**
 * A LoRA adapter's shape: W x + (alpha / r) · B A x over a frozen W, with A [r, in] and B [out, r]; dropout is 0
 * (the choice; no other value is supported).
 */
export const LoraConfigSchema = z
  .object({
    /** Rank. Agon §4 ("Efficient instantiation"): one rank-16 adapter per policy. */
    r: z.number().int().positive().default(16).describe('adapter rank (Agon §4: 16)'),
    /** Scale numerator: the update is multiplied by alpha / r. The paper gives none; ours: 2·r = 32, PEFT's common choice. */
    alpha: z.number().positive().default(32).describe('LoRA alpha; the update is scaled by alpha / r (ours: 32; the paper gives none)'),
    /**
     * The projections wrapped, kept in LORA_TARGETS order whatever order they were given in. Agon §4 puts the rank-16 adapter at about 10M parameters on Qwen3-0.6B, which is what all
     * seven projections of its 28 layers come to (10.1M), so all seven are the default.
     */
    targetModules: z
      .array(z.enum(LORA_TARGETS))
      .min(1)
      .default([...LORA_TARGETS])
      .transform((list) => LORA_TARGETS.filter((t) => list.includes(t)))
      .describe('projections wrapped (default all seven: Agon §4 counts about 10M adapter parameters on Qwen3-0.6B at r = 16)'),
    /**
     * Standard deviation of B at initialization. PEFT's is 0 (the adapter starts as the identity); a positive value makes
     * two adapters behave differently from the first step (Agon §4: the pair must be behaviourally divergent). Ours: 0.
     */
    initStdB: z.number().min(0).default(0).describe('std of the B matrices at init (0: PEFT, the adapter starts as the base; ours)'),
  })
  .strict();

export type LoraConfig = z.output<typeof LoraConfigSchema>;
export type LoraConfigInput = z.input<typeof LoraConfigSchema>;

export const parseLoraConfig = (input: unknown, where = 'adapter config'): LoraConfig => parseConfig(LoraConfigSchema, input ?? {}, where);
