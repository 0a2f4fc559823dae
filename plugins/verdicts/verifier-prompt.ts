import { STEP_SEPARATOR } from '../tasks/prompt.ts';

/**
 * The generator's steps as the verifier reads them: its response cut at every step separator (`\n\n`), each step
 * trimmed, in order. A response of K − 1 separators has K steps, empty ones included, so step k here is step k of the
 * response's step ends (`TurnRecord.stepEnds`) whenever each separator is one token.
 */
export function solutionSteps(response: string): string[] {
  return response.split(STEP_SEPARATOR).map((step) => step.trim());
}

/**
 * The verifier's prompt (Tango §3.2, appendix D: the problem and the generator's solution, never the gold answer, with
 * the number of steps to judge, as the authors' prompt states it). The wording is ours, short for a tiny model: the
 * problem as the generator read it, its steps, their count, then `Verification:`.
 */
export function verifierPrompt(problemPrompt: string, steps: readonly string[]): string {
  return `Verify each step of this solution.\n${problemPrompt}${steps.join(STEP_SEPARATOR)}${STEP_SEPARATOR}The solution has ${steps.length} steps.\nVerification:\n`;
}
