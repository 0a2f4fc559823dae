import { gameFor } from '../engine/trainer/run-pieces.ts';
import { correctFamily, pairedTest, SIGNIFICANCE_LEVEL } from '../lab/eval/significance.ts';
import type { CorrectedTest } from '../lab/eval/report-types.ts';
import { evaluateVerifier, type Estimate, type VerifierEvalResult } from '../lab/eval/verifier-eval.ts';
import { gameShippedBase, resolveModelDir } from '../plugins/policies/default-model.ts';
import { graderForTask, taskByName } from '../plugins/tasks/registry.ts';
import { composePlugins } from '../composition/compose.ts';
import { gameEvalOptions, type GameEvalSettings } from './game-eval-settings.ts';

/** The verifier axes of `ludus eval`: one more axis name beside the tandem paper's. */
export const VERIFIER_AXIS = 'verifier';

/** The game whose verifier role is scored, and that role (Tango's). */
export const VERIFIER_GAME = 'tango';
export const VERIFIER_ROLE = 'verifier';

/** The evaluation's own settings, as `evaluateVerifier` takes them, with the command line's models and tasks. */
export interface VerifierAxisOptions extends GameEvalSettings {
  /** The judging model (`--model`) and the one whose solutions it judges (`--generator`, default the same). */
  readonly model: string;
  readonly generator: string;
  readonly tasks: readonly string[];
}

/** Tango's verifier role played by `model` on solutions by `generator`, per task, with its verdicts scored against gold labels. */
export async function verifierAxis(options: VerifierAxisOptions): Promise<Record<string, VerifierEvalResult>> {
  const catalog = await composePlugins();
  const results: Record<string, VerifierEvalResult> = {};
  for (const name of options.tasks) {
    const game = gameFor(catalog, { game: VERIFIER_GAME, grader: graderForTask(name) ?? 'math', knobs: {} });
    // `default` is the base Tango ships for the task (the judging base on arithmetic), else the task's own.
    const modelFor = (model: string) => (model === 'default' ? gameShippedBase(game.defaultModel, name) : undefined) ?? resolveModelDir(model, name);
    results[name] = await evaluateVerifier({
      game,
      judge: VERIFIER_ROLE,
      policies: { generator: modelFor(options.generator), [VERIFIER_ROLE]: modelFor(options.model) },
      ...gameEvalOptions(options, await taskByName(name), name, `verifier ${name}`),
    });
  }
  return results;
}

/**
 * Outcome F1 of a judge that calls the same share of solutions correct as `counts` did, at random: with a share a of
 * solutions right and a share q called right, its expected precision is a and recall q, so F1 = 2aq / (a + q). The
 * chance line a judge's outcome F1 is read against; null where no verdict was counted.
 */
export function randomJudgeF1(counts: { tp: number; fp: number; fn: number; tn: number }): number | null {
  const n = counts.tp + counts.fp + counts.fn + counts.tn;
  if (n === 0) return null;
  const right = (counts.tp + counts.fn) / n;
  const calledRight = (counts.tp + counts.fp) / n;
  return right + calledRight === 0 ? 0 : (2 * right * calledRight) / (right + calledRight);
}

/** What was judged how: a greedy judge reads each of several solutions once, a sampling judge one solution several times. */
function judgedHow(r: VerifierEvalResult): string {
  const by = `by ${r.policies.generator} at temperature ${r.temperature}`;
  return r.judge_temperature === 0
    ? `${r.problems} problems × ${r.samples} solution${r.samples === 1 ? '' : 's'} ${by}, each judged once, greedily`
    : `${r.problems} solutions ${by}, each judged ${r.samples} time${r.samples === 1 ? '' : 's'} at temperature ${r.judge_temperature}`;
}

const show = (e: Estimate) => (e === null ? 'undefined' : `${e.value.toFixed(3)} ± ${e.se.toFixed(3)}`);

export function summarizeVerifier(results: Record<string, VerifierEvalResult>): string {
  return Object.entries(results)
    .map(
      ([name, r]) =>
        `verifier on ${name} (${r.split}, ${judgedHow(r)}):\n` +
        `  outcome precision ${show(r.outcome_precision)}, recall ${show(r.outcome_recall)}, F1 ${show(r.outcome_f1)} (a random judge calling as many correct: ${randomJudgeF1(r.counts.outcome)?.toFixed(3) ?? 'undefined'}); step F1 ${show(r.step_f1)}\n` +
        `  solutions right ${show(r.solution_accuracy)}; verdicts readable ${show(r.readable)}\n`,
    )
    .join('');
}

/** One paired comparison of two judges on the same solutions, per task. */
export type VerifierComparison = CorrectedTest & { readonly task: string };

/**
 * `--compare` on the verifier axes: the model against another judge of the very same solutions (same generator, same
 * seeds), per task and per metric (outcome and step accuracy per problem, H1: the model is higher), each decided by
 * the exact sign test where few problems differ, Holm-corrected across the whole family.
 */
export function compareVerifiers(model: Record<string, VerifierEvalResult>, other: Record<string, VerifierEvalResult>): VerifierComparison[] {
  const tests: (ReturnType<typeof pairedTest> & { task: string })[] = [];
  for (const [task, mine] of Object.entries(model)) {
    const theirs = other[task];
    if (!theirs) continue;
    for (const metric of ['outcome_accuracy', 'step_accuracy'] as const) {
      const pairs = mine.per_problem.flatMap((p, i) => {
        const [x, y] = [p[metric], theirs.per_problem[i]?.[metric]];
        return x !== null && y !== null && y !== undefined && theirs.per_problem[i].id === p.id ? [[x, y] as const] : [];
      });
      if (pairs.length >= 2) tests.push({ ...pairedTest(metric.replace('_', ' '), 'greater', pairs.map(([x]) => x), pairs.map(([, y]) => y)), task });
    }
  }
  return correctFamily(tests);
}

export function summarizeVerifierComparison(model: string, other: string, tests: readonly VerifierComparison[]): string {
  const lines = [`${model} against ${other}, judging the same solutions (one-sided, H1: ${model} higher; Holm over a family of ${tests.length}):`];
  for (const t of tests) {
    const sign = t.sign ? `${t.sign.wins} problems higher, ${t.sign.losses} lower` : '';
    const verdict = t.p_holm <= SIGNIFICANCE_LEVEL ? 'significant' : 'not significant';
    lines.push(`  ${t.task} ${t.metric}: Δ ${t.mean_diff >= 0 ? '+' : ''}${t.mean_diff.toFixed(3)} (${sign}; ${t.decided_by} p ${t.p_test.toPrecision(3)}, Holm ${t.p_holm.toPrecision(3)}: ${verdict})`);
  }
  return `${lines.join('\n')}\n`;
}
