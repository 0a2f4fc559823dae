import { fail } from '../../../core/errors.ts';
import { bareAnswer } from './bare.ts';
import { gsm8kFinal, lastBox, lastBoxed } from './boxed.ts';
import type { StepBudget } from './budget.ts';
import { finalAnswerPhrase } from './final-answer.ts';
import { lastMathSpan, lastMathSpanListed } from './math-mode.ts';
import { isProse } from './prose.ts';
import { GRADING_RULES, lenient, type GradingRules } from './rules.ts';

/**
 * Where an answer is looked for in a response, one place after another:
 * - `boxed`: the last `\boxed{}` / `\fbox{}` (with the boxes listed just before it);
 * - `final-answer`: what follows the last "final answer is", "the answer is" or "Answer:";
 * - `math-mode`: the last `$…$`, `$$…$$`, `\(…\)` or `\[…\]` holding math;
 * - `bare`: the whole response when it is an answer, not a sentence, else the last number near its end.
 */
export const EXTRACTION_STEPS = ['boxed', 'final-answer', 'math-mode', 'bare'] as const;
export type ExtractionStep = (typeof EXTRACTION_STEPS)[number];

/** Boxed answers only: the RL reward where a game asks for the format (a response that does not box has no answer). */
export const STRICT_EXTRACTION: readonly ExtractionStep[] = ['boxed'];
/** Every step, in order: for grading external data whose responses were not written for this grader. */
export const FULL_EXTRACTION: readonly ExtractionStep[] = EXTRACTION_STEPS;

export const EXTRACTION_ORDERS = { strict: STRICT_EXTRACTION, full: FULL_EXTRACTION } as const;

/**
 * The rules an order is graded under unless told otherwise: boxed answers only is the RL reward's format and keeps
 * ludus's strict rules; any order reading more of a response is for external data, graded as `math-full` is.
 */
export function defaultRules(order: readonly ExtractionStep[]): GradingRules {
  return order.every((step) => step === 'boxed') ? 'strict' : 'math-verify';
}

/** `strict` or `math-verify`; anything else is INPUT_INVALID naming `what`. */
export function parseGradingRules(spec: string, what = '--rules'): GradingRules {
  if (!(GRADING_RULES as readonly string[]).includes(spec)) fail('INPUT_INVALID', `${what}: unknown rules "${spec}" (known: ${GRADING_RULES.join(', ')})`, { rules: spec });
  return spec as GradingRules;
}

export interface Extracted {
  answer: string;
  step: ExtractionStep;
}

type Find = (text: string, budget: StepBudget, lenient: boolean) => string | undefined;

const FIND: Record<Exclude<ExtractionStep, 'boxed'>, Find> = {
  'final-answer': finalAnswerPhrase,
  'math-mode': (text, budget, mv) => (mv ? lastMathSpanListed(text, budget) : lastMathSpan(text, budget)),
  bare: bareAnswer,
};

/**
 * The answer of a response: the first step of `order` that finds one. A last box that never closes is a truncated
 * final answer, so no answer: later steps are not tried. Every character scanned is charged to `budget`. Under
 * Math-Verify's rules (`rules`) each step reads as Math-Verify does: boxes side by side join, math spans listed with
 * "and"/"or" join, a plain number after the last span wins, and a plain number's comma before one or two digits
 * (or any not in groups of three) is a decimal point.
 */
export function extractAnswer(text: string, order: readonly ExtractionStep[], budget: StepBudget, rules?: GradingRules): Extracted | undefined {
  const mv = lenient(rules);
  for (const step of order) {
    if (step === 'boxed') {
      const box = lastBox(text, budget, mv);
      if (box?.truncated) return undefined;
      if (box?.answer !== undefined) return { answer: box.answer, step };
      continue;
    }
    const answer = FIND[step](text, budget, mv);
    if (answer !== undefined) return { answer, step };
  }
  return undefined;
}

/**
 * A gold answer is a bare answer or a worked solution: its last box, else its GSM8K `#### ` line, else the whole
 * text. Under an order past `boxed`, a gold that reads as a sentence is searched as a response is.
 */
export function extractGold(gold: string, order: readonly ExtractionStep[], budget: StepBudget, rules?: GradingRules): string | undefined {
  const marked = lastBoxed(gold, budget, lenient(rules)) ?? gsm8kFinal(gold);
  if (marked !== undefined) return marked;
  const whole = gold.trim();
  if (whole === '') return undefined;
  if (order.every((step) => step === 'boxed')) return whole;
  if (!isProse(whole)) return whole;
  return extractAnswer(gold, order.filter((step) => step !== 'boxed' && step !== 'bare'), budget, rules)?.answer ?? whole;
}

/** `strict`, `full`, or steps separated by commas (`boxed,math-mode`); anything else is INPUT_INVALID naming `what`. */
export function parseExtractionOrder(spec: string, what = '--extract'): ExtractionStep[] {
  if (Object.hasOwn(EXTRACTION_ORDERS, spec)) return [...EXTRACTION_ORDERS[spec as keyof typeof EXTRACTION_ORDERS]];
  const steps = spec.split(',').map((s) => s.trim());
  const known: readonly string[] = EXTRACTION_STEPS;
  for (const step of steps) {
    if (!known.includes(step)) fail('INPUT_INVALID', `${what}: unknown extraction step "${step}" (known: strict, full, or a list of ${EXTRACTION_STEPS.join(', ')})`, { step });
  }
  if (new Set(steps).size !== steps.length) fail('INPUT_INVALID', `${what}: a step is named twice in "${spec}"`, { spec });
  return steps as ExtractionStep[];
}
