import { ContainerModule } from 'inversify';
import type { Grader } from '../../core/grading/verdict.ts';
import { gradeExact } from '../../plugins/graders/exact/grade-exact.ts';
import { gradeMath } from '../../plugins/graders/math/grade-math.ts';
import type { Plugin } from '../../core/plugin.ts';
import { GRADER_PLUGIN } from './tokens.ts';

export type GraderPlugin = Plugin<Grader>;

/** `math`: boxed answers compared as mathematics (the papers' verifier); `exact`: boxed text compared as text. */
export const GRADER_PLUGINS: readonly GraderPlugin[] = [
  { name: 'math', create: () => (gold, pred) => gradeMath(gold, pred) },
  { name: 'exact', create: () => gradeExact },
];

export const gradersModule = new ContainerModule(({ bind }) => {
  for (const plugin of GRADER_PLUGINS) bind(GRADER_PLUGIN).toConstantValue(plugin);
});
