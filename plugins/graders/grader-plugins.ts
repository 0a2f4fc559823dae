import type { Grader } from '../../core/grading/verdict.ts';
import type { Plugin } from '../../core/plugin.ts';
import { gradeExact } from './exact/grade-exact.ts';
import { gradeMath } from './math/grade-math.ts';

export type GraderPlugin = Plugin<Grader>;

/** `math`: boxed answers compared as mathematics (the papers' verifier); `exact`: boxed text compared as text. */
export const GRADER_PLUGINS: readonly GraderPlugin[] = [
  { name: 'math', create: () => (gold, pred) => gradeMath(gold, pred) },
  { name: 'exact', create: () => gradeExact },
];
