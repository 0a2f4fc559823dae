import { DEFAULT_ENDPOINTS_FILE, readEndpoints } from '../endpoints-file.ts';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { gradeMath } from '../../plugins/graders/math/grade-math.ts';
import { defaultRules, FULL_EXTRACTION, parseExtractionOrder, STRICT_EXTRACTION } from '../../plugins/graders/math/extract.ts';
import type { Grader } from '../../core/grading/verdict.ts';
import { EVAL_DEFAULTS, evaluate, type EvalBenchmark, type EvalModel, type EvalOptions } from '../../lab/eval/evaluate.ts';
import { DRIFT_DEFAULTS } from '../../lab/eval/drift.ts';
import { EVAL_AXES, HANDOFF_VARIANTS, type EvalAxis, type EvalReport, type HandoffVariant } from '../../lab/eval/report-types.ts';
import { compareReports } from '../../lab/eval/significance.ts';
import { DISPLACED_RANKINGS, type DisplacedRanking } from '../../core/metrics/token-drift.ts';
import { PRETRAIN_CONFIG_FILE, resolveModelDir, shippedTasks, trainedTask } from '../../plugins/policies/default-model.ts';
import { loadPolicy } from '../../plugins/policies/load-policy.ts';
import { graderForTask, taskByName } from '../../plugins/tasks/registry.ts';
import { gradeExact } from '../../plugins/graders/exact/grade-exact.ts';
import { LudusError, fail } from '../../core/errors.ts';
import { SPLITS, type Split } from '../../core/tasks/task.ts';
import { writeFileAtomically } from '../../native/io/files.ts';
import { deviceOption, forceThreadsOption, parseDevice, threadsOption } from '../options.ts';
import { countProgress } from '../progress.ts';
import { pathExists } from '../../native/io/files.ts';
import { checkpointSource } from '../../native/io/checkpoint.ts';
import { compareVerifiers, summarizeVerifier, summarizeVerifierComparison, VERIFIER_AXIS, verifierAxis } from '../verifier-axis.ts';
import { cascadeMode, summarizeCascade } from '../cascade-mode.ts';
import { summarizeWorldEval, worldEvalMode } from '../world-eval-mode.ts';
import { SPIRAL_EVAL_SAMPLING } from '../../lab/eval/world-eval.ts';
import { pluginOption } from '../run-config.ts';
import type { TextTokenizer } from '../../plugins/tokenizers/hf-tokenizer.ts';
import { CHAT_TEMPLATE_MODES, type ChatTemplateMode } from '../../plugins/tokenizers/prompt-text.ts';

/** The raw EvalReport(s) `--report DIR` writes beside the markdown report; `--compare` reads either file back. */
export const EVAL_REPORT_FILE = 'eval-report.json';

const text = (v: string) => v;

export function register(program: Command): void {
  program
    .command('eval')
    .description('evaluate a model on the tandem paper’s axes: solo capability (pass@k), handoff robustness with a junior, drift from the junior, junior legibility; bootstrap SEs and paired t-tests')
    .option('--model <dir>', "Hugging Face model directory with tokenizer.json, or 'default' (the shipped base for the task)")
    .option('--game <name>', "a world game (tictactoe, kuhn-poker, kuhn-poker-match, negotiation, leduc-holdem, liars-dice, connect-four, trade, or a --plugin's): the model against reference opponents, win/draw/loss ± SE, and the exact exploitability wherever the game's tree is small enough (kuhn-poker, leduc-holdem, liars-dice); --compare evaluates a second model the same way")
    .option('--opponents <list>', "with --game: reference opponents, comma-separated (tictactoe: random, minimax; kuhn-poker: random, nash, nash-bluffer; kuhn-poker-match: random, nash; negotiation: random, bargainer; leduc-holdem, liars-dice: random, nash; connect-four: random, solver; trade: random, trader), or endpoint:<name> for a model behind an OpenAI-compatible endpoint of --endpoints", '')
    .option('--endpoints <file>', `with --game: a JSON file of named endpoints ({ "name": { "url", "model", "tokenEnv", "sampling" } }) that endpoint:<name> opponents come from (default: ${DEFAULT_ENDPOINTS_FILE} in the working directory, when there is one)`)
    .option('--matches <n>', 'with --game: matches per opponent, the model in each seat for half', text, '200')
    .option(...pluginOption)
    .option('--task <names>', 'arithmetic | last-letter | FILE.jsonl; several, comma-separated, for a macro average (default: the task the model was pretrained on)')
    .option('--split <split>', SPLITS.join(' | '), 'test')
    .option('--samples <n>', 'samples per problem (n of the pass@k estimator)', text, String(EVAL_DEFAULTS.samples))
    .option('--problems <n>', 'problems per benchmark', text, String(EVAL_DEFAULTS.problems))
    .option('--temperature <t>', "sampling temperature; 0: greedy decoding (RL Tango evaluates so, §4); with --game, SPIRAL's 0.6 unless given", text, String(EVAL_DEFAULTS.temperature))
    .option('--top-p <p>', "nucleus sampling; with --game, SPIRAL's 0.95 unless given", text, String(EVAL_DEFAULTS.topP))
    .option('--max-new-tokens <n>', 'response budget', text, String(EVAL_DEFAULTS.maxNewTokens))
    .option('--batch <n>', 'rows decoded together', text, String(EVAL_DEFAULTS.batch))
    .option('--chat-template <on|off>', "on: prompt through the model's chat template where its tokenizer has one (instruct models); off: the task's plain prompt", EVAL_DEFAULTS.chatTemplate)
    .option('--seed <n>', 'seed', text, '0')
    .addOption(threadsOption(0))
    .addOption(forceThreadsOption())
    .option('--extract <order>', "where a response's answer is looked for: auto (strict, boxed only, on the generated tasks, whose solutions box their answer; full on JSONL sets), strict, full, or steps separated by commas (see ludus grade)", 'auto')
    .option('--axes <list>', `comma-separated: ${[...EVAL_AXES, VERIFIER_AXIS].join(', ')} (the model as Tango's verifier: outcome precision, recall, F1 and step F1 against gold labels)`, 'capability')
    .option('--judge-temperature <t>', 'the verifier axis: the judge\'s decoding temperature (default 0, greedy, as RL Tango evaluates every model, §4); --temperature samples the solutions it judges', text, String(EVAL_DEFAULTS.judgeTemperature))
    .option('--generator <dir>', "the verifier axis: whose solutions the model judges, a model directory or 'default' (default: the model itself)")
    .option('--challenger <dir>', "cascade mode (Agon §4): --model drafts, this model (a directory, an adapter directory or 'default') answers after reading the draft's summary with its final answer withheld; pass@k, per-stage tokens, summary prefill; --max-new-tokens caps every generation, --compare is a single model at the same cap")
    .option('--proposals <n>', 'cascade mode: drafts before the challenge (more than 1: the Mixture-of-Agents baseline)', text, '1')
    .option('--challenge-layout <layout>', "cascade mode: context (the challenger reads the summary before the plain prompt; agon's default) or continue (it continues the summary)")
    .option('--junior <dir>', "junior for handoff, drift and legibility: a model directory or 'default' (the shipped base)", 'default')
    .option('--reference <dir>', "drift's reference model for the displaced-token analysis (e.g. the GRPO senior); 'default' is the junior, which leaves that analysis out", 'default')
    .option('--compare <dir|json>', "paired one-sided t-tests against another model (a directory or 'default', evaluated here the same way) or a saved eval-report.json / report.json")
    .option('--handoff <list>', `handoff schedules: ${HANDOFF_VARIANTS.join(', ')} (alternate and bernoulli at step ends, the paper's evaluation; word: Bernoulli at every word, the training schedule, i.e. tandem accuracy)`, EVAL_DEFAULTS.handoffVariants.join(','))
    .option('--handoff-p <p>', 'probability of the senior at each handoff draw (appendix B.3: 0.5)', text, String(EVAL_DEFAULTS.handoffP))
    .option('--bootstrap <n>', 'bootstrap resamples of problems for every SE', text, String(EVAL_DEFAULTS.bootstrap))
    .option('--legibility-samples <n>', 'responses per problem the junior reads for legibility', text, String(EVAL_DEFAULTS.legibilitySamples))
    .option('--displaced-top <n>', 'tokens most displaced by the reference (§4.4: 500)', text, String(DRIFT_DEFAULTS.displacedTop))
    .option('--displaced-ranking <rank>', `${DISPLACED_RANKINGS.join(' | ')}: highest signed log(p_ref/p_jun) (§4.4, footnote 4) or largest |log-ratio|`, DRIFT_DEFAULTS.displacedRanking)
    .option('--over-emitted-top <n>', 'over-emitted tokens listed (appendix B.1)', text, String(DRIFT_DEFAULTS.overEmittedTop))
    .option('--over-emitted-min-count <n>', "over-emitted tokens occur at least this often in the model's outputs", text, String(DRIFT_DEFAULTS.overEmittedMinCount))
    .option('--drift-smoothing <x>', 'additive smoothing of token counts', text, String(DRIFT_DEFAULTS.smoothing))
    .option('--min-junior-count <n>', "survival curve over tokens seen at least this often in the junior's outputs", text, String(DRIFT_DEFAULTS.minJuniorCount))
    .addOption(deviceOption())
    .option('--json', 'print one EvalReport JSON object')
    .option('--report <dir>', `write ${EVAL_REPORT_FILE} and the markdown report with plots into DIR`)
    .action(async (opts, command) => {
      if (opts.game !== undefined) {
        const matches = Number(opts.matches);
        // A world game is evaluated as SPIRAL evaluates unless the command names its own sampling.
        const given = (name: string) => command.getOptionValueSource(name) === 'cli';
        const temperature = given('temperature') ? Number(opts.temperature) : SPIRAL_EVAL_SAMPLING.temperature;
        const topP = given('topP') ? Number(opts.topP) : SPIRAL_EVAL_SAMPLING.topP;
        const models = [opts.model ?? 'default', ...(opts.compare !== undefined ? [opts.compare] : [])];
        const counted = opts.json ? undefined : countProgress();
        const results = await worldEvalMode({
          game: opts.game,
          models,
          plugins: opts.plugin,
          opponents: String(opts.opponents).split(',').map((o) => o.trim()).filter((o) => o !== ''),
          endpoints: await readEndpoints(opts.endpoints),
          matches,
          seed: Number(opts.seed),
          temperature,
          topP,
          threads: opts.threads,
          onProgress: counted && ((label, done, total) => counted.update(label, done, total)),
        });
        counted?.stop();
        process.stdout.write(opts.json ? `${JSON.stringify({ game: opts.game, results })}\n` : summarizeWorldEval(opts.game, results));
        return;
      }
      if (opts.model === undefined) fail('INPUT_INVALID', '--model is required (or --game for a world game)', { flag: 'model' });
      // A model directory that is not there is the mistake to name, before any question of which task it knows.
      if (opts.task === undefined && opts.model !== 'default' && !(await pathExists(opts.model))) await checkpointSource(opts.model);
      const task =
        opts.task ??
        trainedTask(opts.model) ??
        fail('INPUT_INVALID', `--task: ${opts.model} does not say which task it was trained on (no ${PRETRAIN_CONFIG_FILE}); give --task`, { flag: 'task' });
      const parsed = parseEvalFlags({ ...opts, task });
      const tasks = parsed.taskNames;
      const benchmarks: EvalBenchmark[] = [];
      for (const name of tasks) benchmarks.push({ name, task: await taskByName(name), split: parsed.split, grade: graderFor(name, parsed.extract) });
      const defaultTask = tasks.find((t) => shippedTasks().includes(t)) ?? tasks[0];
      if (opts.challenger !== undefined) {
        const proposals = Number(opts.proposals);
        if (!Number.isInteger(proposals) || proposals < 1 || proposals > 8) fail('INPUT_INVALID', `--proposals must be an integer in [1, 8], got "${String(opts.proposals)}"`, { flag: 'proposals' });
        if (opts.challengeLayout !== undefined && !['continue', 'context'].includes(opts.challengeLayout)) fail('INPUT_INVALID', `--challenge-layout must be continue or context, got "${String(opts.challengeLayout)}"`, { flag: 'challenge-layout' });
        const results = await cascadeMode({
          ...parsed,
          drafter: opts.model,
          challenger: opts.challenger,
          proposals,
          ...(opts.challengeLayout ? { layout: opts.challengeLayout } : {}),
          ...(opts.compare !== undefined ? { compare: opts.compare } : {}),
          tasks,
          grade: (name) => graderFor(name, parsed.extract),
          device: parseDevice(opts.device),
          onProgress: opts.json ? undefined : (label, done, total) => process.stderr.write(`\r${label} ${done}/${total}`),
        });
        if (!opts.json) process.stderr.write('\n');
        process.stdout.write(opts.json ? `${JSON.stringify({ cascade: results })}\n` : summarizeCascade(results));
        return;
      }
      const judging = { ...parsed, generator: opts.generator ?? opts.model, tasks, device: parseDevice(opts.device), onProgress: opts.json ? undefined : (label: string, done: number, total: number) => process.stderr.write(`\r${label} ${done}/${total}`) };
      const verifier = parsed.verifier ? await verifierAxis({ ...judging, model: opts.model }) : undefined;
      if (verifier && parsed.axes.length === 0) {
        // --compare: another judge of the very same solutions (the same generator and seeds), with paired tests.
        const other = opts.compare === undefined ? undefined : await verifierAxis({ ...judging, model: opts.compare });
        const tests = other ? compareVerifiers(verifier, other) : undefined;
        if (!opts.json) process.stderr.write('\n');
        if (opts.json) process.stdout.write(`${JSON.stringify({ model: opts.model, verifier, ...(other ? { compare: { model: opts.compare, verifier: other }, tests } : {}) })}\n`);
        else process.stdout.write(other ? `${summarizeVerifier(verifier)}compared with ${opts.compare}:\n${summarizeVerifier(other)}${summarizeVerifierComparison(opts.model, opts.compare!, tests!)}` : summarizeVerifier(verifier));
        return;
      }
      const modelDir = resolveModelDir(opts.model, defaultTask);
      const model = await loadModel(opts.model, modelDir, defaultTask);
      const needsJunior = parsed.axes.some((a) => a !== 'capability');
      const junior = needsJunior ? await loadModel(opts.junior, resolveModelDir(opts.junior, defaultTask), defaultTask) : undefined;
      const reference = parsed.axes.includes('drift') && opts.reference !== 'default' ? await loadModel(opts.reference, resolveModelDir(opts.reference, defaultTask), defaultTask) : undefined;
      const counted = opts.json ? undefined : countProgress();
      const progress = counted && ((label: string, done: number, total: number) => counted.update(label, done, total));
      const base: Omit<EvalOptions, 'model'> = {
        ...(junior ? { junior: junior.model } : {}),
        ...(reference ? { reference: reference.model } : {}),
        tokenizer: model.tokenizer,
        benchmarks,
        axes: parsed.axes,
        problems: parsed.problems,
        samples: parsed.samples,
        grade: gradeMath,
        temperature: parsed.temperature,
        topP: parsed.topP,
        maxNewTokens: parsed.maxNewTokens,
        stopTokens: model.model.policy.config.eosTokenIds,
        batch: parsed.batch,
        chatTemplate: parsed.chatTemplate,
        threads: parsed.threads,
        device: parseDevice(opts.device),
        seed: parsed.seed,
        bootstrap: parsed.bootstrap,
        handoffVariants: parsed.handoff,
        handoffP: parsed.handoffP,
        legibilitySamples: parsed.legibilitySamples,
        displacedTop: parsed.displacedTop,
        displacedRanking: parsed.displacedRanking,
        overEmittedTop: parsed.overEmittedTop,
        overEmittedMinCount: parsed.overEmittedMinCount,
        driftSmoothing: parsed.driftSmoothing,
        driftMinJuniorCount: parsed.minJuniorCount,
        onProgress: progress,
      };
      const report = await evaluate({ ...base, model: model.model });
      const reports: EvalReport[] = [report];
      let other: EvalReport | undefined;
      if (opts.compare !== undefined) {
        other = await otherReport(opts.compare, base, defaultTask);
        report.significance = compareReports(report, other);
        reports.push(other);
      }
      counted?.stop();
      // Results first, files after: a failure while writing the report must not lose a long evaluation.
      // With --compare, both models' scores, each labelled the same way, then the paired tests.
      const text = other ? `${summarize(report, false)}\ncompared with:\n${summarize(other, false)}\n${significanceLines(report)}` : summarize(report);
      process.stdout.write(opts.json ? `${JSON.stringify(verifier ? { ...report, verifier } : report)}\n` : `${text}${verifier ? summarizeVerifier(verifier) : ''}`);
      if (opts.report !== undefined) {
        await writeReports(reports, resolve(opts.report));
        if (!opts.json) process.stdout.write(`report written to ${resolve(opts.report)}\n`);
      }
    });
}

/**
 * `auto`: the generated tasks keep the boxed format (and strict rules) their reward asks for; external JSONL sets get
 * the full order and Math-Verify's rules, as `math-full` grades.
 */
function graderFor(task: string, extract: string): Grader {
  if (extract === 'auto' && graderForTask(task) === 'exact') return gradeExact;
  const extraction = extract === 'auto' ? (/\.(jsonl|parquet)$/.test(task) ? FULL_EXTRACTION : STRICT_EXTRACTION) : parseExtractionOrder(extract);
  const rules = defaultRules(extraction);
  return (gold, pred) => gradeMath(gold, pred, { extraction, rules });
}

interface ParsedFlags {
  extract: string;
  taskNames: string[];
  split: Split;
  samples: number;
  problems: number;
  temperature: number;
  /** The verifier axis: the judge's temperature (the solutions it judges are sampled at `temperature`). */
  judgeTemperature: number;
  topP: number;
  maxNewTokens: number;
  batch: number;
  chatTemplate: ChatTemplateMode;
  seed: number;
  threads: number;
  axes: EvalAxis[];
  /** Whether the verifier axis was asked for (it is not one of the tandem paper's, so it is not in `axes`). */
  verifier: boolean;
  handoff: HandoffVariant[];
  handoffP: number;
  bootstrap: number;
  legibilitySamples: number;
  displacedTop: number;
  displacedRanking: DisplacedRanking;
  overEmittedTop: number;
  overEmittedMinCount: number;
  driftSmoothing: number;
  minJuniorCount: number;
}

/** Every flag checked up front: a bad one is an INPUT_INVALID LudusError naming it, before any model loads. */
export function parseEvalFlags(opts: Record<string, unknown>): ParsedFlags {
  const int = (flag: string, value: unknown, min: number): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min) fail('INPUT_INVALID', `--${flag} must be an integer >= ${min}, got "${String(value)}"`, { flag });
    return n;
  };
  const real = (flag: string, value: unknown, lo: number, hi: number, openLo = false): number => {
    const n = Number(value);
    if (String(value).trim() === '' || !Number.isFinite(n) || n > hi || (openLo ? n <= lo : n < lo)) fail('INPUT_INVALID', `--${flag} must be a number in ${openLo ? '(' : '['}${lo}, ${hi}], got "${String(value)}"`, { flag });
    return n;
  };
  const list = <T extends string>(flag: string, value: unknown, allowed: readonly T[]): T[] => {
    const items = String(value).split(',').map((s) => s.trim()).filter((s) => s.length > 0);
    if (items.length === 0) fail('INPUT_INVALID', `--${flag} is empty`, { flag });
    for (const item of items) if (!(allowed as readonly string[]).includes(item)) fail('INPUT_INVALID', `--${flag}: unknown "${item}" (known: ${allowed.join(', ')})`, { flag, item });
    return [...new Set(items)] as T[];
  };
  if (!(SPLITS as readonly unknown[]).includes(opts.split)) fail('INPUT_INVALID', `--split must be one of ${SPLITS.join(', ')}, got "${String(opts.split)}"`, { flag: 'split' });
  const taskNames = String(opts.task).split(',').map((s) => s.trim()).filter((s) => s.length > 0);
  if (taskNames.length === 0) fail('INPUT_INVALID', '--task is empty', { flag: 'task' });
  if (new Set(taskNames).size !== taskNames.length) fail('INPUT_INVALID', `--task names a benchmark twice: ${taskNames.join(', ')}`, { flag: 'task' });
  const extract = String(opts.extract ?? 'auto');
  if (extract !== 'auto') parseExtractionOrder(extract);
  const axes = list('axes', opts.axes, [...EVAL_AXES, VERIFIER_AXIS]);
  return {
    taskNames,
    extract,
    split: opts.split as Split,
    samples: int('samples', opts.samples, 1),
    problems: int('problems', opts.problems, 1),
    temperature: real('temperature', opts.temperature, 0, 100),
    judgeTemperature: real('judge-temperature', opts.judgeTemperature ?? EVAL_DEFAULTS.judgeTemperature, 0, 100),
    topP: real('top-p', opts.topP, 0, 1, true),
    maxNewTokens: int('max-new-tokens', opts.maxNewTokens, 1),
    batch: int('batch', opts.batch, 1),
    chatTemplate: list('chat-template', opts.chatTemplate, CHAT_TEMPLATE_MODES)[0],
    seed: int('seed', opts.seed, 0),
    threads: int('threads', opts.threads, 0),
    axes: axes.filter((axis): axis is EvalAxis => axis !== VERIFIER_AXIS),
    verifier: axes.includes(VERIFIER_AXIS),
    handoff: list('handoff', opts.handoff, HANDOFF_VARIANTS),
    handoffP: real('handoff-p', opts.handoffP, 0, 1),
    bootstrap: int('bootstrap', opts.bootstrap, 2),
    legibilitySamples: int('legibility-samples', opts.legibilitySamples, 1),
    displacedTop: int('displaced-top', opts.displacedTop, 1),
    displacedRanking: list('displaced-ranking', opts.displacedRanking, DISPLACED_RANKINGS)[0],
    overEmittedTop: int('over-emitted-top', opts.overEmittedTop, 1),
    overEmittedMinCount: int('over-emitted-min-count', opts.overEmittedMinCount, 1),
    driftSmoothing: real('drift-smoothing', opts.driftSmoothing, 0, 1e6, true),
    minJuniorCount: int('min-junior-count', opts.minJuniorCount, 0),
  };
}

async function loadModel(given: string, dir: string, task: string): Promise<{ model: EvalModel; tokenizer: TextTokenizer }> {
  const { policy, tokenizer } = await loadPolicy(dir);
  if (!tokenizer) throw new LudusError('CHECKPOINT_MISSING_FILE', `${given}: evaluation needs a tokenizer.json in the model directory`);
  return { model: { id: given === 'default' ? `default:${task}` : given, policy }, tokenizer };
}

/** The report to pair with: a saved one, or the other model evaluated exactly as the first (same problems, seeds, junior). */
async function otherReport(compare: string, base: Omit<EvalOptions, 'model'>, defaultTask: string): Promise<EvalReport> {
  if (compare.endsWith('.json')) {
    if (!existsSync(compare)) fail('FILE_NOT_FOUND', `--compare: ${compare} does not exist`, { path: compare });
    const json = JSON.parse(readFileSync(compare, 'utf8')) as unknown;
    const report = asEvalReport(json);
    if (!report) fail('DATA_INVALID', `--compare: ${compare} holds neither an EvalReport nor a written report with one`, { path: compare });
    return report;
  }
  const other = await loadModel(compare, resolveModelDir(compare, defaultTask), defaultTask);
  return evaluate({ ...base, model: other.model });
}

function asEvalReport(json: unknown): EvalReport | undefined {
  const isReport = (x: unknown): x is EvalReport => typeof x === 'object' && x !== null && 'per_problem' in x && 'config' in x && 'model' in x;
  if (Array.isArray(json)) return json.find(isReport);
  if (isReport(json)) return json;
  const models = (json as { models?: Array<{ report?: unknown }> } | null)?.models;
  return Array.isArray(models) ? models.map((m) => m.report).find(isReport) : undefined;
}

/** `eval-report.json` (the EvalReports as they are) and, through the reports plugin, report.md, report.json and the plots. */
async function writeReports(reports: EvalReport[], dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFileAtomically(join(dir, EVAL_REPORT_FILE), `${JSON.stringify(reports.length === 1 ? reports[0] : reports, null, 2)}\n`);
  const { writeReport } = await import('../../lab/reports/write-report.ts');
  await writeReport(reports, dir);
}

const fmt = (e: { value: number; se: number }, digits = 4) => `${e.value.toFixed(digits)} ± ${e.se.toFixed(digits)}`;
/** A value ± its SE, or the bare value for reports made before that SE existed. */
const withSe = (value: number, se: number | undefined, digits: number) => (se === undefined ? value.toFixed(digits) : fmt({ value, se }, digits));
const percent = (rate: number, se: number | undefined) => `${withSe(rate * 100, se === undefined ? undefined : se * 100, 1)}%`;

function summarize(report: EvalReport, withSignificance = true): string {
  const lines: string[] = [];
  const names = report.benchmarks.map((b) => b.name);
  lines.push(`${report.model} on ${report.benchmarks.map((b) => `${b.name} (${b.split}, ${b.problems} problems)`).join(', ')}; SEs from ${report.config.bootstrap} bootstrap resamples`);
  if (report.capability) {
    const c = report.capability;
    lines.push(`capability, solo (the model writes alone; ${c.samples} samples per problem):`);
    for (const name of names) lines.push(`  ${name}: ${passLine(c.per_benchmark[name].pass_at_k)}; answer present ${percent(c.per_benchmark[name].answer_present_rate, c.per_benchmark[name].answer_present_rate_se)}`);
    if (names.length > 1) lines.push(`  macro: ${passLine(c.macro.pass_at_k)}`);
  }
  for (const h of report.handoff ?? []) {
    lines.push(`co-written with ${report.junior}, handoff ${h.variant} (p ${h.p}):`);
    for (const name of names) {
      const b = h.per_benchmark[name];
      lines.push(
        `  ${name}: ${passLine(b.pass_at_k)}; senior share ${b.senior_share.mean.toFixed(3)} (std ${b.senior_share.std.toFixed(3)}); ${withSe(b.handoffs_per_rollout, b.handoffs_per_rollout_se, 2)} handoffs per rollout; answer present ${percent(b.answer_present_rate, b.answer_present_rate_se)}`,
      );
    }
    if (names.length > 1) lines.push(`  macro: ${passLine(h.macro.pass_at_k)}; ${withSe(h.macro.handoffs_per_rollout, h.macro.handoffs_per_rollout_se, 2)} handoffs per rollout`);
  }
  if (report.drift) {
    const d = report.drift;
    lines.push(`drift from ${report.junior}: KL ${fmt(d.kl, 5)} nats over ${d.tokens.model} / ${d.tokens.junior} tokens${d.reference_kl ? `; reference KL ${fmt(d.reference_kl, 5)}` : ''}`);
    const s = d.survival;
    if (s.length > 0) lines.push(`  survival of |log-ratio| (${s.length} thresholds up to ${s[s.length - 1].threshold.toFixed(3)}): share above ${s[Math.floor(s.length / 10)].threshold.toFixed(3)} is ${withSe(s[Math.floor(s.length / 10)].fraction, s[Math.floor(s.length / 10)].se, 3)}`);
    if (d.displaced) lines.push(`  top-${d.displaced.top} displaced by ${report.reference} (${d.displaced.ranking ?? 'absolute'} log-ratio): shift-back share ${d.displaced.shift_back_share.toFixed(3)}, Spearman ρ ${d.displaced.spearman.rho.toFixed(3)} (p ${d.displaced.spearman.p.toExponential(2)})`);
    lines.push(`  over-emitted: ${d.over_emitted.slice(0, 8).map((t) => `${JSON.stringify(t.text)} ${t.model_count}/${t.junior_count}`).join(', ') || 'none'}`);
  }
  if (report.legibility) {
    const l = report.legibility;
    for (const name of names) lines.push(`legibility ${name}: junior cross-entropy ${fmt(l.per_benchmark[name].cross_entropy)} nats/token, overlap α ${fmt(l.per_benchmark[name].overlap)} over ${l.per_benchmark[name].tokens} tokens`);
    if (names.length > 1) lines.push(`legibility macro: cross-entropy ${fmt(l.macro.cross_entropy)}, overlap α ${fmt(l.macro.overlap)}`);
  }
  return `${lines.join('\n')}\n${withSignificance ? significanceLines(report) : ''}`;
}

function significanceLines(report: EvalReport): string {
  if (!report.significance) return '';
  const lines = [`paired one-sided t-tests, ${report.model} against ${report.significance.other}:`];
  for (const t of report.significance.tests) lines.push(`  ${t.metric} (${t.alternative}): Δ ${t.mean_diff.toFixed(4)}, t ${t.statistic === null ? 'undefined' : t.statistic.toFixed(3)}, df ${t.df}, p ${t.p.toExponential(3)}`);
  return `${lines.join('\n')}\n`;
}

function passLine(p: Record<string, { value: number; se: number }>): string {
  return Object.entries(p)
    .map(([k, e]) => `pass@${k} ${fmt(e)}`)
    .join(', ');
}
