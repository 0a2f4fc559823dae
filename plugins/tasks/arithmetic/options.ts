import { z } from 'zod';
import { PLACE_NAMES } from './place-names.ts';

/** The answer may gain a column over its longest operand, and every column needs a name. */
export const MAX_DIGITS = PLACE_NAMES.length - 1;

export const OPERATIONS = ['add', 'sub', 'mul'] as const;
export type Operation = (typeof OPERATIONS)[number];

const digits = z.number().int().min(1).max(MAX_DIGITS);

export const ArithmeticOptionsSchema = z
  .strictObject({
    seed: z.number().int().min(0).default(0),
    /**
     * The level: each problem's longer operand has minDigits..maxDigits digits. Ours: 2..4, so that most problems
     * need a carry or borrow, where the shipped base's flaw shows (see lab/pretrain).
     */
    minDigits: digits.default(2),
    maxDigits: digits.default(4),
    operations: z.array(z.enum(OPERATIONS)).min(1).default(['add', 'sub']),
    /** Chance that a column carries (or borrows) wherever its digits can be chosen either way (ours: 0.7, as above). */
    carryRate: z.number().min(0).max(1).default(0.7),
  })
  .refine((options) => options.minDigits <= options.maxDigits, { message: 'minDigits must not exceed maxDigits', path: ['minDigits'] });

export type ArithmeticOptions = z.output<typeof ArithmeticOptionsSchema>;
export type ArithmeticOptionsInput = z.input<typeof ArithmeticOptionsSchema>;
