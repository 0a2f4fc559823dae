/** Limits every comparison runs under; a grader that runs out says `correct: false`, it never hangs. */
export interface GradeLimits {
  /** Parser and evaluator steps for comparing one gold/pred pair. */
  maxSteps: number;
  /** Steps for finding the answers in one gold/pred pair: every character scanned by hand is one. */
  maxExtractionSteps: number;
  /** Wall-clock limit for one gold/pred pair, extraction and comparison together, checked every few hundred steps. */
  timeMs: number;
  /** Deepest nesting of groups the parser follows. */
  maxDepth: number;
}

/** Ours: 4M extraction steps let a response of a few megabytes be scanned for its answer. */
export const DEFAULT_GRADE_LIMITS: GradeLimits = { maxSteps: 500_000, maxExtractionSteps: 4_000_000, timeMs: 200, maxDepth: 100 };

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
  /** `performance.now()` past which the budget is spent; a second budget for the same pair shares it. */
  readonly deadline: number;
  private steps = 0;
  private untilClockRead = STEPS_BETWEEN_CLOCK_READS;
  private readonly maxSteps: number;

  constructor(limits: Pick<GradeLimits, 'maxSteps' | 'timeMs' | 'maxDepth'> = DEFAULT_GRADE_LIMITS, deadline?: number) {
    this.maxSteps = limits.maxSteps;
    this.maxDepth = limits.maxDepth;
    this.deadline = deadline ?? performance.now() + limits.timeMs;
  }

  /** Steps charged so far: what a test counts to show that work grows with the input, not with the clock. */
  get used(): number {
    return this.steps;
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
