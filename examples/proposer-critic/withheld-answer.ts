import { STEP_SEPARATOR } from '../../plugins/tasks/prompt.ts';

/** A draft's working without its answer: every step before the first one that boxes an answer. */
export function workingOf(draft: string): string {
  const steps = draft.split(STEP_SEPARATOR);
  const answerStep = steps.findIndex((step) => step.includes('\\boxed'));
  return (answerStep < 0 ? steps : steps.slice(0, answerStep)).join(STEP_SEPARATOR);
}
