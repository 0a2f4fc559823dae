import { parseAnswer, compact, type Answer } from './answer.ts';
import { goldAnswerOf, lastBoxed } from './boxed.ts';
import { BudgetExceeded, DEFAULT_GRADE_LIMITS, StepBudget, type GradeLimits } from './budget.ts';
import { answersEqual } from './equivalence.ts';
import { normalizeAnswer, type NormalizedAnswer } from './normalize.ts';

export interface MathGrade {
  /** The prediction has a non-empty, closed last `\boxed{}`. */
  answer_present: boolean;
  correct: boolean;
  pred_answer?: string;
  gold_answer?: string;
}

/** Longer answers are only compared as exact text: nothing that long is a short math answer. */
export const MAX_ANSWER_CHARS = 10_000;

/**
 * Grades a model output against a gold answer. `gold` is a bare answer or a worked solution (its last
 * `\boxed{}`, else its GSM8K `#### ` line); `pred` must box its answer. Model text is parsed, never run.
 */
export function gradeMath(gold: string, pred: string, limits: GradeLimits = DEFAULT_GRADE_LIMITS): MathGrade {
  const gold_answer = goldAnswerOf(gold);
  const pred_answer = lastBoxed(pred);
  const withGold = gold_answer === undefined ? {} : { gold_answer };
  if (pred_answer === undefined) return { answer_present: false, correct: false, ...withGold };
  const correct = gold_answer !== undefined && mathAnswersEqual(gold_answer, pred_answer, limits);
  return { answer_present: true, correct, pred_answer, ...withGold };
}

/** Whether two bare answers are mathematically the same; false when either cannot be judged within `limits`. */
export function mathAnswersEqual(gold: string, pred: string, limits: GradeLimits = DEFAULT_GRADE_LIMITS): boolean {
  if (gold.length > MAX_ANSWER_CHARS || pred.length > MAX_ANSWER_CHARS) return compact(gold) === compact(pred);
  const g = normalizeAnswer(gold);
  const p = normalizeAnswer(pred);
  if (g.latex === '' || p.latex === '') return false;
  if (g.worded === p.worded && compact(g.latex) === compact(p.latex)) return true;
  const budget = new StepBudget(limits);
  try {
    const golds = readings(g, parseAnswer(g, budget));
    const preds = readings(p, parseAnswer(p, budget));
    return golds.some((x) => preds.some((y) => answersEqual(x, y, budget)));
  } catch (error) {
    if (error instanceof BudgetExceeded) return false;
    throw error;
  }
}

/** `10\%` reads as 10 and as 0.1. */
function readings(normalized: NormalizedAnswer, answer: Answer): Answer[] {
  if (!normalized.percent || answer.kind !== 'expression') return [answer];
  const hundred = { kind: 'number', value: { n: 100n, d: 1n }, decimal: false } as const;
  return [answer, { kind: 'expression', expr: { kind: 'product', factors: [{ divide: false, expr: answer.expr }, { divide: true, expr: hundred }] } }];
}
