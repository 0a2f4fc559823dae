import { z } from 'zod';
import type { Task } from '../../../core/tasks/task.ts';
import { generatedTask, type CanonicalMeta } from '../generated-task.ts';
import { parseOptions } from '../parse-options.ts';

const digits = z.number().int().min(1).max(7);

export const MultiplicationOptionsSchema = z
  .strictObject({
    seed: z.number().int().min(0).default(0),
    /** Digits of each factor (ours: 3 and 3, products a 3M-parameter model cannot work out in its head but a calculator can). */
    minDigits: digits.default(3),
    maxDigits: digits.default(3),
  })
  .refine((options) => options.minDigits <= options.maxDigits, { message: 'minDigits must not exceed maxDigits', path: ['minDigits'] });

export type MultiplicationMeta = { a: number; b: number };

/**
 * Long multiplication of two whole numbers, answered in one step (`The answer is \boxed{…}.`): the task of the `calc`
 * game, where a calculator tool makes it easy and working it out alone is beyond the shipped base.
 */
export function multiplicationTask(input: Record<string, unknown> = {}): Task<MultiplicationMeta & CanonicalMeta> {
  const options = parseOptions(MultiplicationOptionsSchema, input, 'task "multiplication"');
  const factor = (rng: { int(n: number): number }) => {
    const length = options.minDigits + rng.int(options.maxDigits - options.minDigits + 1);
    return 10 ** (length - 1) + rng.int(9 * 10 ** (length - 1));
  };
  return generatedTask<MultiplicationMeta>('multiplication', options.seed, (_split, rng) => {
    const a = factor(rng);
    const b = factor(rng);
    return { canonical: `${a}*${b}`, question: `What is ${a} times ${b}?`, answer: String(a * b), steps: [], meta: { a, b } };
  });
}
