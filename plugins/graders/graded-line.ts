import { z } from 'zod';
import type { LudusErrorCode } from '../../core/errors.ts';
import { gradeMath } from './math/grade-math.ts';

export interface GradedLine {
  answer_present: boolean;
  correct: boolean;
}

/** Takes a bad line's place in the output, so output line N always answers input line N. */
export interface LineError {
  error: { code: LudusErrorCode; line: number; message: string };
}

const GradeRequest = z.object({
  gold: z.union([z.string(), z.number()]),
  pred: z.string(),
});

/** Grades one JSON line `{"gold": string | number, "pred": string}`; `lineNumber` counts from 1. */
export function gradeJsonLine(text: string, lineNumber: number): GradedLine | LineError {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return lineError(lineNumber, text.trim() === '' ? 'empty line' : `not JSON: ${(error as Error).message}`);
  }
  const request = GradeRequest.safeParse(value);
  if (!request.success) {
    const issues = request.error.issues.map((issue) => `${issue.path.join('.') || '(line)'}: ${issue.message}`).join('; ');
    return lineError(lineNumber, `expected {"gold": string | number, "pred": string}: ${issues}`);
  }
  const { answer_present, correct } = gradeMath(String(request.data.gold), request.data.pred);
  return { answer_present, correct };
}

const lineError = (line: number, message: string): LineError => ({ error: { code: 'INPUT_INVALID', line, message } });
