import type { Verdict } from '../../../core/grading/verdict.ts';
import { goldAnswerOf, lastBoxed } from '../math/boxed.ts';

/**
 * Exact match of the last `\boxed{}` against the gold answer (a bare answer, or a worked solution's last box),
 * after trimming and collapsing whitespace; case-sensitive. For answers that are words, not numbers (last-letter).
 */
export function gradeExact(gold: string, pred: string): Verdict & { pred_answer?: string } {
  const goldAnswer = goldAnswerOf(gold);
  const predAnswer = lastBoxed(pred);
  if (predAnswer === undefined) return { answer_present: false, correct: false };
  const squash = (text: string) => text.trim().replace(/\s+/g, ' ');
  return { answer_present: true, correct: goldAnswer !== undefined && squash(goldAnswer) === squash(predAnswer), pred_answer: predAnswer };
}
