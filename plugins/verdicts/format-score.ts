import type { ParsedVerification } from './step-verdicts.ts';

/**
 * What one unmet formatting criterion costs (ours: the paper says the score "is gradually reduced for each unmet
 * formatting criterion" without the amount; five criteria at 0.2 take a response that meets none to 0).
 */
export const FORMAT_PENALTY = 0.2;

/** The criteria of a well-formed verification, each met or not (Tango §3.2, Eq. 8 and the text after it). */
export function formatCriteria(parsed: ParsedVerification, solutionSteps: number): Record<string, boolean> {
  return {
    /** One final verdict, on the last line. */
    final_verdict: parsed.finals === 1 && parsed.finalLast,
    /** As many step judgments as the solution has steps (the paper: "discrepancies in step numbering"). */
    step_count: parsed.steps.length === solutionSteps,
    /** Steps numbered 1, 2, … in order. */
    step_numbering: parsed.steps.length > 0 && parsed.steps.every((step, k) => step.number === k + 1),
    /** Every step judged with a reason before its verdict (the paper: "the absence of step-wise justifications"). */
    justified: parsed.steps.length > 0 && parsed.steps.every((step) => step.justification.length > 0),
    /** Nothing but step judgments and the final verdict. */
    no_stray_text: parsed.strayLines === 0,
  };
}

/** r_format: 1.0, less `penalty` for each unmet criterion, never below 0 (Tango §3.2). */
export function formatScore(parsed: ParsedVerification, solutionSteps: number, penalty = FORMAT_PENALTY): number {
  const unmet = Object.values(formatCriteria(parsed, solutionSteps)).filter((met) => !met).length;
  return Math.max(0, 1 - penalty * unmet);
}
