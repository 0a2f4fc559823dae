import { z } from 'zod';
import type { LudusErrorCode } from '../../core/errors.ts';
import { parseJsonExactNumbers } from '../../core/exact-json.ts';
import { defaultRules, FULL_EXTRACTION, type ExtractionStep } from './math/extract.ts';
import { gradeMath } from './math/grade-math.ts';
import type { GradingRules } from './math/rules.ts';

export interface GradedLine {
  answer_present: boolean;
  correct: boolean;
}

/** Takes a bad line's place in the output, so output line N always answers input line N. */
export interface LineError {
  error: { code: LudusErrorCode; line: number; message: string };
}

/** A number too large for a double arrives as the string it was written as (see parseJsonExactNumbers). */
const GradeRequest = z.object({
  gold: z.union([z.string(), z.number()]),
  pred: z.string(),
});

export interface GradeRequestLine {
  gold: string;
  pred: string;
}

/** Reads one JSON line `{"gold": string | number, "pred": string}`; `lineNumber` counts from 1. */
export function parseGradeLine(text: string, lineNumber: number): GradeRequestLine | LineError {
  let value: unknown;
  try {
    value = parseJsonExactNumbers(text);
  } catch (error) {
    return lineError(lineNumber, text.trim() === '' ? 'empty line' : `not JSON: ${(error as Error).message}`);
  }
  const request = GradeRequest.safeParse(value);
  if (!request.success) {
    const issues = request.error.issues.map((issue) => `${issue.path.join('.') || '(line)'}: ${issue.message}`).join('; ');
    return lineError(lineNumber, `expected {"gold": string | number, "pred": string}: ${issues}`);
  }
  return { gold: String(request.data.gold), pred: request.data.pred };
}

/**
 * Grades one JSON line `{"gold": string | number, "pred": string}`; `lineNumber` counts from 1. External data
 * was not written for this grader, so the prediction's answer is looked for in every place (`extraction`) and
 * compared as `math-full` does (`rules`: Math-Verify's rules unless the order is boxed answers only).
 */
export function gradeJsonLine(
  text: string,
  lineNumber: number,
  extraction: readonly ExtractionStep[] = FULL_EXTRACTION,
  rules: GradingRules = defaultRules(extraction),
): GradedLine | LineError {
  const request = parseGradeLine(text, lineNumber);
  if ('error' in request) return request;
  const { answer_present, correct } = gradeMath(request.gold, request.pred, { extraction, rules });
  return { answer_present, correct };
}

const lineError = (line: number, message: string): LineError => ({ error: { code: 'INPUT_INVALID', line, message } });
