import type { Rng } from '../../../core/rng.ts';
import { generatedTask, type CanonicalMeta } from '../generated-task.ts';
import { parseOptions } from '../parse-options.ts';
import { boxedAnswerStep, joinSteps } from '../prompt.ts';
import type { LabelledSolution, Problem, Task } from '../../../core/tasks/task.ts';
import { columnSteps } from './column-steps.ts';
import { corruptArithmetic } from './corrupt.ts';
import { judgedSlipWalk } from './judged-slip.ts';
import { digitsToNumber, drawOperands, type Operands } from './operands.ts';
import { ArithmeticOptionsSchema, type ArithmeticOptionsInput, type Operation } from './options.ts';
import { arithmeticStepCheck } from './step-check.ts';

export type ArithmeticMeta = { operation: Operation; a: number; b: number };

export type ArithmeticTask = Task<ArithmeticMeta & CanonicalMeta> & Required<Pick<Task<ArithmeticMeta & CanonicalMeta>, 'slipped' | 'judgedSlip'>>;

const WORD: Record<Operation, string> = { add: 'plus', sub: 'minus', mul: 'times' };
const SYMBOL: Record<Operation, string> = { add: '+', sub: '-', mul: '*' };

/** Multi-digit addition, subtraction and multiplication by a digit, solved column by column in words. */
export function arithmeticTask(input: ArithmeticOptionsInput = {}): ArithmeticTask {
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
    // Gold step labels (every gold step right), so a verifier's step verdicts are scored against the gold path.
  }, (steps) => steps.map(() => true));
  return { ...task, corrupt: corruptArithmetic, stepCheck: arithmeticStepCheck, slipped: slippedSolution,
    judgedSlip: (problem, rate, missRate, rng) => judgedSlipWalk(operandsOf(problem.meta), problem.steps, rate, missRate, rng),
    answerInWork: writtenAnswer,
  };
}

/**
 * The number a column walk's `Write d` lines spell, ones first (the last carry's `Write c` the leading digits), without
 * leading zeros; null when the text writes nothing.
 */
export function writtenAnswer(text: string): string | null {
  const written = [...text.matchAll(/\bWrite (\d+)/g)].map((m) => m[1]);
  if (written.length === 0) return null;
  return written.reverse().join('').replace(/^0+(?=\d)/, '');
}

/** Ones first, as the column walk reads them. */
const digitsOf = (n: number): number[] => String(n).split('').reverse().map(Number);

function operandsOf({ operation, a, b }: ArithmeticMeta): Operands {
  return { operation, top: digitsOf(a), bottom: operation === 'mul' ? [b] : digitsOf(b) };
}

/** The column walk of a pupil who forgets each due carry or borrow with probability `rate` (see `columnSteps`). */
function slippedSolution(problem: Problem<ArithmeticMeta & CanonicalMeta>, rate: number, rng: Rng): LabelledSolution {
  const walk = columnSteps(operandsOf(problem.meta), () => rng.bernoulli(rate));
  const steps = [...walk.steps, boxedAnswerStep(walk.answer)];
  return { solution: joinSteps(steps), steps, stepLabels: steps.map((step, i) => step === problem.steps[i]) };
}
