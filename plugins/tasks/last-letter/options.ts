import { z } from 'zod';

const range = z
  .tuple([z.number().int().min(1), z.number().int().min(1)])
  .refine(([min, max]) => min <= max, { message: 'a range is [min, max] with min <= max' });

const SplitShapeSchema = z.strictObject({ words: range, letters: range });

export type SplitShape = z.output<typeof SplitShapeSchema>;

/** Tango appendix B.2: RL training data. */
export const TANGO_TRAIN_SHAPE: SplitShape = { words: [2, 10], letters: [3, 10] };
/** Tango appendix B.2: test data, slightly longer to probe out-of-distribution generalization. */
export const TANGO_TEST_SHAPE: SplitShape = { words: [2, 12], letters: [3, 12] };
/** Tango appendix B.2: the short problems of the format-teaching SFT stage. */
export const TANGO_SFT_SHAPE: SplitShape = { words: [2, 4], letters: [3, 6] };

export const LastLetterOptionsSchema = z.strictObject({
  seed: z.number().int().min(0).default(0),
  train: SplitShapeSchema.default(TANGO_TRAIN_SHAPE),
  test: SplitShapeSchema.default(TANGO_TEST_SHAPE),
});

export type LastLetterOptionsInput = z.input<typeof LastLetterOptionsSchema>;
