/**
 * The verifier's judgment, one line per step of the solution and a final verdict (Tango §3.2, Figure 2: a judgment of
 * every step, each `\boxed{CORRECT}` or `\boxed{INCORRECT}`, then an overall one). The authors wrap these in
 * `<step_verification>` and `<final_verification>` tags; ours are plain lines, shorter for a tiny model:
 *
 *   Step 1: ends with "t", so far "t". \boxed{CORRECT}
 *   Step 2: the answer is "t". \boxed{CORRECT}
 *   Final: \boxed{CORRECT}
 */
export interface StepJudgment {
  /** The number the line gives the step (1-based as written; not checked against its place here). */
  readonly number: number;
  /** The working before the box: the verifier's reason. */
  readonly justification: string;
  readonly correct: boolean;
}

export interface ParsedVerification {
  /** Every step line, in the order written. */
  readonly steps: readonly StepJudgment[];
  /** The final verdict; undefined when there is none, or several that disagree. */
  readonly final: boolean | undefined;
  /** How many final-verdict lines there were. */
  readonly finals: number;
  /** Whether the (last) final verdict is the last non-empty line. */
  readonly finalLast: boolean;
  /** Non-empty lines that are neither a step judgment nor a final verdict. */
  readonly strayLines: number;
}

export const VERDICT = { correct: 'CORRECT', incorrect: 'INCORRECT' } as const;

const STEP_LINE = /^Step (\d+):(.*?)\\boxed\{(CORRECT|INCORRECT)\}\s*\.?$/;
const FINAL_LINE = /^Final:\s*\\boxed\{(CORRECT|INCORRECT)\}\s*\.?$/;

const box = (correct: boolean) => `\\boxed{${correct ? VERDICT.correct : VERDICT.incorrect}}`;

/** One step's line: `Step k: <justification> \boxed{…}` (k 1-based). */
export function stepLine(number: number, justification: string, correct: boolean): string {
  return `Step ${number}: ${justification} ${box(correct)}`;
}

export function finalLine(correct: boolean): string {
  return `Final: ${box(correct)}`;
}

/** A whole verification in the format `parseVerification` reads: a line per step, then the final verdict. */
export function writeVerification(steps: readonly { justification: string; correct: boolean }[], final: boolean): string {
  return [...steps.map((step, k) => stepLine(k + 1, step.justification, step.correct)), finalLine(final)].join('\n');
}

/**
 * Reads a verifier's output line by line; never throws. Text that matches no line format is counted, not guessed at:
 * a response without a final verdict has none (the reward rule counts it as wrong).
 */
export function parseVerification(text: string): ParsedVerification {
  const steps: StepJudgment[] = [];
  const finals: boolean[] = [];
  let strayLines = 0;
  let lastKind: 'step' | 'final' | 'stray' | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    const step = STEP_LINE.exec(line);
    const final = FINAL_LINE.exec(line);
    if (step) {
      steps.push({ number: Number(step[1]), justification: step[2].trim(), correct: step[3] === VERDICT.correct });
      lastKind = 'step';
    } else if (final) {
      finals.push(final[1] === VERDICT.correct);
      lastKind = 'final';
    } else {
      strayLines++;
      lastKind = 'stray';
    }
  }
  const agreed = finals.length > 0 && finals.every((f) => f === finals[0]) ? finals[0] : undefined;
  return { steps, final: agreed, finals: finals.length, finalLast: lastKind === 'final', strayLines };
}
