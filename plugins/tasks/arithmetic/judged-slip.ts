import type { Rng } from '../../../core/rng.ts';
import type { JudgedSolution } from '../../../core/tasks/task.ts';
import { boxedAnswerStep, joinSteps } from '../prompt.ts';
import { columnSteps } from './column-steps.ts';
import type { Operands } from './operands.ts';
import { placeLabel } from './place-names.ts';

/** The working of a step after the first wrong one: the gold-path convention makes it wrong whatever it says. */
export const AFTER_WRONG_STEP = 'after a wrong step.';

/**
 * A pupil's walk that forgets each due carry (or borrow) with probability `rate` (`columnSteps`), judged by a verifier
 * that checks one column at a time: it rewrites each column from the column's digits and the carry the step before it
 * passed on, as written, and compares. Judging a step is thus one local check, not the whole sum. Each working line
 * names its column's place (`Tens: …`), as the step does, so the verifier finds the step it judges by its content
 * rather than by counting steps: without the place a 4-layer base copied another column's digits into 57% of its
 * workings (docs/default-base.md). Its designed flaw:
 * at each forgotten carry it forgets the carry too with probability `missRate` (it rewrites the column just as the
 * pupil did and calls it right), and checks on from there. The first column it rewrites differently is wrong, every
 * step after it too (the gold-path labels' convention), and the final verdict is right exactly when it caught no slip.
 */
export function judgedSlipWalk(operands: Operands, gold: readonly string[], rate: number, missRate: number, rng: Rng): JudgedSolution {
  const slips = new Set<number>();
  const walk = columnSteps(operands, (column) => {
    const slip = rng.bernoulli(rate);
    if (slip) slips.add(column);
    return slip;
  });
  const missed = new Set([...slips].filter(() => rng.bernoulli(missRate)));
  const judge = columnSteps(operands, (column) => missed.has(column));
  const steps = [...walk.steps, boxedAnswerStep(walk.answer)];
  const answerStep = steps.length - 1;
  let caught = false;
  const judgments = steps.map((step, k) => {
    if (caught) return { justification: k === answerStep ? AFTER_WRONG_STEP : `${placeLabel(k)}: ${AFTER_WRONG_STEP}`, correct: false };
    const expected = k === answerStep ? boxedAnswerStep(judge.answer) : judge.steps[k];
    const justification = k === answerStep ? `the answer is ${judge.answer}.` : (expected ?? '');
    caught = expected !== step;
    return { justification, correct: !caught };
  });
  return { solution: { solution: joinSteps(steps), steps, stepLabels: steps.map((step, i) => step === gold[i]) }, judgments, final: !caught };
}
