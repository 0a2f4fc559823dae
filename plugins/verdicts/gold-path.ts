const normalized = (step: string) => step.trim().replace(/\s+/g, ' ');

/**
 * Gold step labels of a written solution (the convention of the tasks' corrupted solutions): step k is correct while
 * the solution is still on the gold path, i.e. it and every step before it read as the gold steps do (whitespace
 * aside). Steps past the gold solution's length are wrong.
 */
export function goldPathLabels(goldSteps: readonly string[], steps: readonly string[]): boolean[] {
  let onPath = true;
  return steps.map((step, k) => (onPath = onPath && k < goldSteps.length && normalized(step) === normalized(goldSteps[k])));
}
