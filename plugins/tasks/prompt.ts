/** The one prompt layout of every task: the model continues after "Answer:\n" with its solution. */
export function questionPrompt(question: string): string {
  return `Question: ${question.trim()}\nAnswer:\n`;
}

export function boxedAnswerStep(answer: string): string {
  return `The answer is \\boxed{${answer}}.`;
}

export const STEP_SEPARATOR = '\n\n';

export function joinSteps(steps: readonly string[]): string {
  return steps.join(STEP_SEPARATOR);
}
