import type { Grader } from '../../core/grading/verdict.ts';
import type { Plugin } from '../../core/plugin.ts';
import { gradeExact } from './exact/grade-exact.ts';
import { FULL_EXTRACTION } from './math/extract.ts';
import { gradeMath } from './math/grade-math.ts';

export type GraderPlugin = Plugin<Grader>;

/**
 * `math`: the last `\boxed{}` compared as mathematics, no box no answer (the papers' verifier, the RL reward where
 * a game asks for the format); `math-full`: the same comparison, the answer looked for in the box, then after
 * "the final answer is", then in the last `$…$`, then as a bare final expression, and compared with Math-Verify's
 * leniencies too (`math/rules.ts`; for external data, as `ludus grade` and `ludus eval` on JSONL sets use it);
 * `exact`: boxed text compared as text.
 */
export const GRADER_PLUGINS: readonly GraderPlugin[] = [
  { name: 'math', create: () => (gold, pred) => gradeMath(gold, pred) },
  { name: 'math-full', create: () => (gold, pred) => gradeMath(gold, pred, { extraction: FULL_EXTRACTION, rules: 'math-verify' }) },
  { name: 'exact', create: () => gradeExact },
];
