import { generatedTask, type CanonicalMeta } from '../generated-task.ts';
import { parseOptions } from '../parse-options.ts';
import type { Task } from '../../../core/tasks/task.ts';
import { columnSteps } from './column-steps.ts';
import { corruptArithmetic } from './corrupt.ts';
import { digitsToNumber, drawOperands } from './operands.ts';
import { ArithmeticOptionsSchema, type ArithmeticOptionsInput, type Operation } from './options.ts';
import { arithmeticStepCheck } from './step-check.ts';

export type ArithmeticMeta = { operation: Operation; a: number; b: number };

const WORD: Record<Operation, string> = { add: 'plus', sub: 'minus', mul: 'times' };
const SYMBOL: Record<Operation, string> = { add: '+', sub: '-', mul: '*' };

/** Multi-digit addition, subtraction and multiplication by a digit, solved column by column in words. */
export function arithmeticTask(input: ArithmeticOptionsInput = {}): Task<ArithmeticMeta & CanonicalMeta> {
  const options = parseOptions(ArithmeticOptionsSchema, input, 'task "arithmetic"');
  const task = generatedTask<ArithmeticMeta>('arithmetic', options.seed, (_split, rng) => {
    const operation = options.operations[rng.int(options.operations.length)];
    const operands = drawOperands(operation, rng, options);
    const a = digitsToNumber(operands.top);
    const b = digitsToNumber(operands.bottom);
    const { steps, answer } = columnSteps(operands);
    return {
      canonical: `${a}${SYMBOL[operation]}${b}`,
      question: `What is ${a} ${WORD[operation]} ${b}?`,
      answer,
      steps,
      meta: { operation, a, b },
    };
  });
  return { ...task, corrupt: corruptArithmetic, stepCheck: arithmeticStepCheck };
}
