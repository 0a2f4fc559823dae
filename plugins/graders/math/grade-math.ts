import { parseAnswer, compact, type Answer } from './answer.ts';
import { BudgetExceeded, DEFAULT_GRADE_LIMITS, StepBudget, type GradeLimits } from './budget.ts';
import { answersEqual } from './equivalence.ts';
import { extractAnswer, extractGold, STRICT_EXTRACTION, type ExtractionStep } from './extract.ts';
import { normalizeAnswer, type NormalizedAnswer } from './normalize.ts';
import type { GradingRules } from './rules.ts';

export interface MathGrade {
  /** An answer was extracted from the prediction by one of the extraction steps. */
  answer_present: boolean;
  correct: boolean;
  pred_answer?: string;
  gold_answer?: string;
  /** The step that found the prediction's answer. */
  extracted_by?: ExtractionStep;
  /** Steps charged for extraction and comparison: what grows with the input, however fast the machine. */
  steps: number;
}

export interface MathGradeOptions {
  /** Where the prediction's answer is looked for; boxed only unless told otherwise (the RL reward's format). */
  extraction?: readonly ExtractionStep[];
  /** `strict` (the default: the RL reward's rules) or `math-verify` (Math-Verify's leniencies too; see `rules.ts`). */
  rules?: GradingRules;
  limits?: GradeLimits;
}

/** Longer answers are only compared as exact text: nothing that long is a short math answer. */
export const MAX_ANSWER_CHARS = 10_000;

/**
 * Grades a model output against a gold answer. `gold` is a bare answer or a worked solution (its last
 * `\boxed{}`, else its GSM8K `#### ` line); the prediction's answer is found by `options.extraction`
 * (default: boxed only). Model text is parsed, never run; extraction and comparison stay within `options.limits`.
 */
export function gradeMath(gold: string, pred: string, options: MathGradeOptions = {}): MathGrade {
  const limits = options.limits ?? DEFAULT_GRADE_LIMITS;
  const order = options.extraction ?? STRICT_EXTRACTION;
  const budget = new StepBudget({ ...limits, maxSteps: limits.maxExtractionSteps });
  let gold_answer: string | undefined;
  let extracted: ReturnType<typeof extractAnswer>;
  try {
    gold_answer = extractGold(gold, order, budget, options.rules);
    extracted = extractAnswer(pred, order, budget, options.rules);
  } catch (error) {
    if (error instanceof BudgetExceeded) return { answer_present: false, correct: false, steps: budget.used };
    throw error;
  }
  const withGold = gold_answer === undefined ? {} : { gold_answer };
  if (extracted === undefined) return { answer_present: false, correct: false, ...withGold, steps: budget.used };
  const comparison = new StepBudget(limits, budget.deadline);
  const correct = gold_answer !== undefined && mathAnswersEqual(gold_answer, extracted.answer, comparison, options.rules);
  return { answer_present: true, correct, pred_answer: extracted.answer, ...withGold, extracted_by: extracted.step, steps: budget.used + comparison.used };
}

/** Whether two bare answers are mathematically the same; false when either cannot be judged within `budget`. */
export function mathAnswersEqual(gold: string, pred: string, budget: StepBudget = new StepBudget(), rules?: GradingRules): boolean {
  if (gold.length > MAX_ANSWER_CHARS || pred.length > MAX_ANSWER_CHARS) return compact(gold) === compact(pred);
  try {
    const g = normalizeAnswer(gold, budget, rules);
    const p = normalizeAnswer(pred, budget, rules);
    if (g.latex === '' || p.latex === '') return false;
    const mv = rules === 'math-verify';
    const samePercent = !mv || g.percent === p.percent || (p.plainPercent && !g.percent);
    if (g.worded === p.worded && samePercent && compact(g.latex) === compact(p.latex)) return true;
    const golds = readings(g, parseAnswer(g, budget, rules), !mv);
    const preds = readings(p, parseAnswer(p, budget, rules), !mv || p.plainPercent);
    return golds.some((x) => preds.some((y) => answersEqual(x, y, budget, rules)));
  } catch (error) {
    if (error instanceof BudgetExceeded) return false;
    throw error;
  }
}

/**
 * `10\%` reads as 0.1, and as 10 where `asWritten` (ludus's rules always; Math-Verify's only for a prediction's
 * plain-text `10%` or `10 percent`, whose digits it keeps as the answer's text).
 */
function readings(normalized: NormalizedAnswer, answer: Answer, asWritten: boolean): Answer[] {
  if (!normalized.percent || answer.kind !== 'expression') return [answer];
  const hundred = { kind: 'number', value: { n: 100n, d: 1n }, decimal: false } as const;
  const fraction: Answer = { kind: 'expression', expr: { kind: 'product', factors: [{ divide: false, expr: answer.expr }, { divide: true, expr: hundred }] } };
  return asWritten ? [answer, fraction] : [fraction];
}
