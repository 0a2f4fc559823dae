import { LudusError, fail } from '../../core/errors.ts';

/**
 * Runs optimizer steps, skipping one that reports NON_FINITE (the learner applies no update then) and counting it;
 * `limit` such steps in a row abort the run with NON_FINITE. Any other error passes through.
 */
export class NonFiniteGuard {
  constructor(
    readonly limit: number,
    public consecutive = 0,
    public skipped = 0,
  ) {}

  async run<T>(step: () => Promise<T>): Promise<T | undefined> {
    try {
      const result = await step();
      this.consecutive = 0;
      return result;
    } catch (error) {
      if (!LudusError.is(error, 'NON_FINITE')) throw error;
      this.consecutive += 1;
      this.skipped += 1;
      if (this.consecutive >= this.limit) {
        fail('NON_FINITE', `${this.consecutive} optimizer steps in a row were non-finite; aborting (last: ${error.message})`, { consecutive: this.consecutive, skipped: this.skipped });
      }
      return undefined;
    }
  }
}
