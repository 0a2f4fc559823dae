import { z } from 'zod';

export const LrScheduleSchema = z.object({
  lr: z.number().positive().describe('peak learning rate'),
  warmupSteps: z.number().int().min(0).default(0).describe('linear warm-up from 0 over this many steps'),
  decay: z.enum(['cosine', 'constant']).default('constant').describe("'cosine' decays to lr · minRatio by the last step; 'constant' stays at lr after warm-up"),
  minRatio: z.number().min(0).max(1).default(0.1).describe('where a cosine decay ends, as a fraction of lr'),
}).strict();

export type LrSchedule = z.output<typeof LrScheduleSchema>;

/** Learning rate for optimizer step `step` (0-based) of `totalSteps`. */
export function learningRate(schedule: LrSchedule, step: number, totalSteps: number): number {
  if (step < schedule.warmupSteps) return (schedule.lr * (step + 1)) / schedule.warmupSteps;
  if (schedule.decay === 'constant') return schedule.lr;
  const span = Math.max(totalSteps - schedule.warmupSteps, 1);
  const progress = Math.min((step - schedule.warmupSteps) / span, 1);
  const cosine = 0.5 * (1 + Math.cos(Math.PI * progress));
  return schedule.lr * (schedule.minRatio + (1 - schedule.minRatio) * cosine);
}
