/**
 * The instruction every task's problems carry (tandem RL appendix A.2: "Each problem is formatted with an instruction
 * requiring the model to output its final answer in \boxed{} form"). The wording is DeepScaleR's, the training set
 * of the paper, as verl's preprocessing appends it to each question.
 */
export const STEP_BY_STEP_INSTRUCTION = "Let's think step by step and output the final answer within \\boxed{}.";

/** What a model is asked: the question followed by the instruction, as one user turn would hold them. */
export function questionWithInstruction(question: string, instruction: string): string {
  return `${question.trim()} ${instruction}`;
}

/**
 * The one plain-text prompt layout of every task, for models without a chat template: the model continues after
 * "Answer:\n" with its solution.
 */
export function questionPrompt(question: string, instruction: string = STEP_BY_STEP_INSTRUCTION): string {
  return `Question: ${questionWithInstruction(question, instruction)}\nAnswer:\n`;
}

export function boxedAnswerStep(answer: string): string {
  return `The answer is \\boxed{${answer}}.`;
}

export const STEP_SEPARATOR = '\n\n';

export function joinSteps(steps: readonly string[]): string {
  return steps.join(STEP_SEPARATOR);
}
