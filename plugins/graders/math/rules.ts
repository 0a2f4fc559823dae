/**
 * Which comparison rules a grade runs under:
 * - `strict`: ludus's own rules, the RL reward's (`math`): a list counts repeats, tuples keep their brackets, one box
 *   list joined only by separators, a relation matches by its sides or its interval;
 * - `math-verify`: those and Math-Verify 0.8.0's leniencies for external data (`math-full`, `ludus grade`): decimal
 *   commas in plain text, boxes side by side and math spans joined by "and"/"or" as one answer, lists as sets, sets
 *   against tuples, assignment lists as tuples, equations and inequalities up to a factor, `\approx` chains, words
 *   against letters, a plain number after the last math span. `plugins/graders/math/README.md` lists each rule.
 */
export const GRADING_RULES = ['strict', 'math-verify'] as const;
export type GradingRules = (typeof GRADING_RULES)[number];

/** True under Math-Verify's leniencies. */
export const lenient = (rules: GradingRules | undefined): boolean => rules === 'math-verify';
