/** Limits every comparison runs under; a grader that runs out says `correct: false`, it never hangs. */
export interface GradeLimits {
  /** Parser and evaluator steps for one gold/pred pair. */
  maxSteps: number;
  /** Wall-clock limit for one gold/pred pair, checked every few hundred steps. */
  timeMs: number;
  /** Deepest nesting of groups the parser follows. */
  maxDepth: number;
}

export const DEFAULT_GRADE_LIMITS: GradeLimits = { maxSteps: 500_000, timeMs: 200, maxDepth: 100 };

/** Thrown when a comparison runs past its limits; caught by the grader, which then answers `correct: false`. */
export class BudgetExceeded extends Error {
  constructor(what: string) {
    super(`grading budget exceeded: ${what}`);
    this.name = 'BudgetExceeded';
  }
}

const STEPS_BETWEEN_CLOCK_READS = 256;

export class StepBudget {
  readonly maxDepth: number;
  private steps = 0;
  private untilClockRead = STEPS_BETWEEN_CLOCK_READS;
  private readonly maxSteps: number;
  private readonly deadline: number;

  constructor(limits: GradeLimits = DEFAULT_GRADE_LIMITS) {
    this.maxSteps = limits.maxSteps;
    this.maxDepth = limits.maxDepth;
    this.deadline = performance.now() + limits.timeMs;
  }

  tick(cost = 1): void {
    this.steps += cost;
    if (this.steps > this.maxSteps) throw new BudgetExceeded(`more than ${this.maxSteps} steps`);
    this.untilClockRead -= cost;
    if (this.untilClockRead <= 0) {
      this.untilClockRead = STEPS_BETWEEN_CLOCK_READS;
      if (performance.now() > this.deadline) throw new BudgetExceeded('time limit');
    }
  }

  enter(depth: number): void {
    if (depth > this.maxDepth) throw new BudgetExceeded(`nesting deeper than ${this.maxDepth}`);
    this.tick();
  }
}
