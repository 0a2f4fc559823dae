import { fail, present } from '../core/errors.ts';
import type { Grader } from '../core/grading/verdict.ts';
import type { PairedTest, PassAtK } from '../lab/eval/report-types.ts';
import { evaluateCascade, pairedPassTest, type CascadeEvalResult } from '../lab/eval/cascade-eval.ts';
import { evaluate } from '../lab/eval/evaluate.ts';
import { gameFor } from '../engine/trainer/run-pieces.ts';
import { resolveModelDir } from '../plugins/policies/default-model.ts';
import { loadPolicy } from '../plugins/policies/load-policy.ts';
import { graderForTask, taskByName } from '../plugins/tasks/registry.ts';
import { composePlugins } from '../composition/compose.ts';
import { gameEvalOptions, type GameEvalSettings } from './game-eval-settings.ts';

/** `ludus eval --challenger`: the cascade mode's settings, from the command line. */
export interface CascadeModeOptions extends GameEvalSettings {
  /** `--model` drafts, `--challenger` answers after reading the draft's summary (answer withheld). */
  readonly drafter: string;
  readonly challenger: string;
  /** Drafts before the challenge: more than 1 is the Mixture-of-Agents baseline's proposer layer. */
  readonly proposals: number;
  readonly layout?: 'continue' | 'context';
  /** The single model compared at the same per-generation cap (pass@1 and, generation-matched, pass@2). */
  readonly compare?: string;
  readonly tasks: readonly string[];
  readonly grade: (task: string) => Grader;
  /** Every generation's cap: each cascade turn's and the compared single model's. */
  readonly maxNewTokens: number;
}

export interface CascadeModeResult {
  readonly task: string;
  readonly cascade: CascadeEvalResult;
  /** The compared single model at the same cap: its pass@k, and the cascade's pass@1 tested against its pass@1 and pass@2. */
  readonly single?: { readonly model: string; readonly pass_at_k: PassAtK; readonly mean_response_tokens: number; readonly tests: readonly PairedTest[] };
}

/** The agon game's cascade, per task, with its knobs from the flags; and the compared single model, when asked. */
export async function cascadeMode(options: CascadeModeOptions): Promise<CascadeModeResult[]> {
  if (options.tasks.length === 0) fail('INPUT_INVALID', '--task is empty', { flag: 'task' });
  const catalog = await composePlugins();
  const results: CascadeModeResult[] = [];
  for (const name of options.tasks) {
    const task = await taskByName(name);
    const grade = options.grade(name);
    const knobs = { turnTokens: options.maxNewTokens, proposals: options.proposals, ...(options.layout ? { challengeLayout: options.layout } : {}) };
    const cascade = await evaluateCascade({
      game: gameFor(catalog, { game: 'agon', grader: graderForTask(name) ?? 'math', knobs }),
      drafter: resolveModelDir(options.drafter, name),
      challenger: resolveModelDir(options.challenger, name),
      grade,
      ...gameEvalOptions(options, task, name, `cascade ${name}`),
    });
    if (options.compare === undefined) {
      results.push({ task: name, cascade });
      continue;
    }
    const dir = resolveModelDir(options.compare, name);
    const loaded = await loadPolicy(dir, 'single');
    const tokenizer = loaded.tokenizer ?? fail('CHECKPOINT_MISSING_FILE', `${options.compare}: evaluation needs a tokenizer.json in the model directory`);
    const report = await evaluate({
      model: { id: options.compare, policy: loaded.policy },
      tokenizer,
      benchmarks: [{ name, task, split: options.split, grade }],
      axes: ['capability'],
      problems: options.problems,
      samples: options.samples,
      grade,
      temperature: options.temperature,
      topP: options.topP,
      maxNewTokens: options.maxNewTokens,
      stopTokens: loaded.policy.config.eosTokenIds,
      batch: options.batch,
      seed: options.seed,
      bootstrap: options.bootstrap,
      threads: options.threads,
      ...(options.device ? { device: options.device } : {}),
    });
    const capability = present(report.capability, 'the capability axis of the single-pass report').per_benchmark[name];
    const single = { n: options.samples, perProblem: report.per_problem.map((p) => ({ id: p.id, correct: p.capability_correct ?? 0 })) };
    const mine = { n: cascade.samples, perProblem: cascade.per_problem.map(({ id, correct }) => ({ id, correct })) };
    const tests = [pairedPassTest(mine, single, 1, 1), ...(options.samples >= 2 ? [pairedPassTest(mine, single, 1, 2)] : [])];
    results.push({ task: name, cascade, single: { model: options.compare, pass_at_k: capability.pass_at_k, mean_response_tokens: capability.mean_response_tokens, tests } });
  }
  return results;
}

const show = (e: { value: number; se: number }, digits = 3) => `${e.value.toFixed(digits)} ± ${e.se.toFixed(digits)}`;

export function summarizeCascade(results: readonly CascadeModeResult[]): string {
  return results
    .map(({ task, cascade: c, single }) => {
      const lines = [
        `cascade on ${task} (${c.split}, ${c.problems} problems × ${c.samples} answers): ${c.drafter} drafts${c.generations > 2 ? ` ×${c.generations - 1}` : ''}, ${c.challenger} answers; ${c.generations} generations of ≤ ${c.turn_tokens} tokens per answer`,
        `  ${Object.entries(c.pass_at_k).map(([k, e]) => `pass@${k} ${show(e)}`).join(', ')}; draft alone pass@1 ${show(c.draft_pass_at_k['1'])}`,
        `  converted ${show(c.converted)}, regressed ${show(c.regressed)}, answer present ${show(c.answer_present_rate)}`,
        `  tokens per answer: drafting ${show(c.trace_tokens.draft, 1)}, challenge ${show(c.trace_tokens.challenge, 1)}, summary prefill ${show(c.trace_tokens.summary_prefill, 1)}`,
      ];
      if (single) {
        lines.push(`  single model ${single.model} at the same cap: ${Object.entries(single.pass_at_k).map(([k, e]) => `pass@${k} ${show(e)}`).join(', ')}; ${single.mean_response_tokens.toFixed(1)} tokens per answer`);
        for (const t of single.tests) lines.push(`  paired test, cascade ${t.metric} > single (n = ${t.n}): Δ ${t.mean_diff.toFixed(4)}, p ${t.p.toPrecision(3)}`);
      }
      return `${lines.join('\n')}\n`;
    })
    .join('');
}
