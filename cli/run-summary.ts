import type { AnyGame } from '../core/catalog.ts';
import { firstUpdateOf, updatesOf } from '../core/game/rotations.ts';
import { coAuthors, writtenHow } from '../core/protocols/protocol.ts';
import type { IdlePolicy } from '../engine/trainer/metrics-line.ts';
import { bestPolicyDir, checkpointPolicyDir } from '../engine/trainer/run-dir.ts';
import type { TrainResult } from '../engine/trainer/trainer.ts';
import { isAbsolute, relative } from 'node:path';
import { stallWarning, type Stall } from '../engine/trainer/stall-watch.ts';
import { EVAL_DEFAULTS } from '../lab/eval/evaluate.ts';
import { pairDivergenceLine, type PairDivergence } from './pair-divergence.ts';
import { VERIFIER_AXIS, VERIFIER_GAME, VERIFIER_ROLE } from './verifier-axis.ts';

/** What the end-of-run summary needs besides the result: the run as planned, and what the steps showed. */
export interface RunFacts {
  readonly game: AnyGame;
  readonly out: string;
  readonly task: string;
  /** Trainable policies and the model each started from (`default`: the shipped base). */
  readonly trained: readonly { readonly name: string; readonly init: string }[];
  /** Per policy: the steps (1-based) at which it learned nothing. */
  readonly idle: ReadonlyMap<string, readonly number[]>;
  /** Steps this process ran (a resumed run's earlier steps are not in `idle`). */
  readonly stepsRun: number;
  /** The run's files this run wrote (metrics.jsonl, transcripts.jsonl, validation.jsonl where it validated, summary.json). */
  readonly files?: readonly string[];
  /** The training's response budget, which the printed eval command keeps. */
  readonly maxNewTokens?: number;
  /** Two policies seated in turn (Agon's A and B): how often they answer the held-out problems differently on the same seeds. */
  readonly pair?: PairDivergence;
  /** The `--plugin` files the run loaded (its game's, where a plugin registers it): every command printed carries them. */
  readonly plugins?: readonly string[];
  /** Policies whose gradient stayed near 0 for several steps (StallWatch), with the likely cause. */
  readonly stalls?: readonly Stall[];
}

const quote = (arg: string): string => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`);

/** A command line as a user would paste it. */
export function commandLine(args: readonly string[]): string {
  return args.map(quote).join(' ');
}

/**
 * What a newcomer needs at the end of a run: did training help (every accuracy saying solo or co-written, which split
 * and which policy), whether any policy learned nothing, where the files are, the one command that evaluates the run
 * against its base, how to watch it again.
 */
export function runSummary(result: TrainResult, facts: RunFacts, seconds: number): string {
  const { game, out } = facts;
  const role = game.validateOn;
  const seats = game.rotation.at(0).seats;
  const resumed = facts.stepsRun < result.steps ? ` (${facts.stepsRun} in this process, resumed from step ${result.steps - facts.stepsRun})` : '';
  const lines = [`\ntrained ${game.id} for ${result.steps} step${result.steps === 1 ? '' : 's'}${resumed} in ${formatDuration(seconds)}`];
  const c = result.comparison;
  if (c) {
    const pct = (e: { value: number; se: number }) => `${(100 * e.value).toFixed(1)}% ± ${(100 * e.se).toFixed(1)}`;
    lines.push(
      `  accuracy of ${c.role} (${c.written}), ${c.split} split, ${c.problems} held-out problems, one match each on the same seeds:`,
      `    policy ${c.policy} trained ${pct(c.trained)}   at the start ${pct(c.start)}   difference ${c.difference.value >= 0 ? '+' : ''}${(100 * c.difference.value).toFixed(1)} ± ${(100 * c.difference.se).toFixed(1)} points (paired, bootstrap SE)`,
    );
    if (c.tools) {
      const use = (t: Readonly<Record<string, number>>) => `calls ${(t.tool_calls ?? 0).toFixed(2)}, call rate ${(100 * (t.tool_call_rate ?? 0)).toFixed(1)}%, malformed ${(t.tool_malformed ?? 0).toFixed(2)} a match`;
      lines.push(`    tools: trained ${use(c.tools.trained)}   at the start ${use(c.tools.start)}`);
    }
  }
  if (facts.pair) lines.push(pairDivergenceLine(facts.pair));
  const validated = seats[role];
  const updates = updatesOf(game.rotation, validated, result.steps);
  if (facts.trained.some((p) => p.name === validated) && updates < result.steps) {
    const first = firstUpdateOf(game.rotation, validated);
    lines.push(
      `  note: policy ${validated} (${role}) took ${updates} update${updates === 1 ? '' : 's'} in these ${result.steps} steps: rotation ${game.rotation.name} first trains it at step ${first === undefined ? 'never' : first + 1}${first !== undefined && first > 0 ? ' (the steps before are its warm-up)' : ''}, so its numbers move only after that`,
    );
  }
  if (result.best?.split === 'eval') {
    lines.push(`  best score against the fixed opponents (wins and half the draws, the mean over opponents) ${(100 * result.best.accuracy).toFixed(1)}% at step ${result.best.step}: ${facts.trained.map((p) => bestPolicyDir(out, p.name)).join(', ')}`);
  } else if (result.best) {
    const split = result.best.split ?? 'validation';
    lines.push(`  best ${split} accuracy of ${role} (${writtenHow(game.protocol, role)}, policy ${validated}) ${(100 * result.best.accuracy).toFixed(1)}% at step ${result.best.step}: ${facts.trained.map((p) => bestPolicyDir(out, p.name)).join(', ')}`);
  }
  for (const [policy, steps] of facts.idle) {
    if (steps.length === 0) continue;
    lines.push(
      steps.length === facts.stepsRun
        ? `  WARNING: policy ${policy} learned nothing in this run: at every step its gradient was 0, every group's matches paid the same reward, so its weights moved by weight decay only. Check that the reward rule tells its matches apart (a verifier that never writes a verdict pays every match alike)`
        : `  warning: policy ${policy} learned nothing at ${steps.length} of the ${facts.stepsRun} steps run (${shortList(steps)}): gradient 0, every group's matches paid the same reward`,
    );
  }
  for (const stall of facts.stalls ?? []) lines.push(`  ${stallWarning(stall).trimEnd()}`);
  const policyDirs = facts.trained.map((p) => checkpointPolicyDir(out, p.name));
  const files = facts.files ?? ['metrics.jsonl', 'transcripts.jsonl', 'validation.jsonl'];
  lines.push(`  files: ${files.map((file, i) => (i === 0 ? `${out}/${file}` : file)).join(', ')}; the policies in ${policyDirs.join(', ')}`);
  const evaluated = facts.trained.find((p) => p.name === validated) ?? facts.trained[0];
  if (evaluated) {
    const roles = Object.entries(seats).filter(([, policy]) => policy === evaluated.name).map(([seat]) => seat);
    const plugins = (facts.plugins ?? []).flatMap((file) => ['--plugin', shownPath(file)]);
    const command = [...evalCommand(game, facts.task, checkpointPolicyDir(out, evaluated.name), evaluated.init, roles, facts.maxNewTokens), ...plugins];
    lines.push(`  evaluate it against its base: npx ${commandLine(command)}`);
    const cost = evalCost(command);
    if (cost) lines.push(`    ${cost}`);
  }
  lines.push(`  watch it again: npx ludus serve --runs ${out}`, '');
  return lines.join('\n');
}

/**
 * `ludus eval` of a trained policy against the model it started from: Tango's verifier on the verifier axes, a world
 * game against its reference opponents (and its exact measures), a co-writing policy solo and co-written (handoff
 * with the base as the junior), any other on its task.
 */
function evalCommand(game: AnyGame, task: string, model: string, base: string, roles: readonly string[], maxNewTokens?: number): string[] {
  // Tango's verifier alone (the fixed-generator ablation): judging the base's solutions beside the base judging them.
  if (game.id === VERIFIER_GAME && !roles.includes(game.validateOn) && roles.includes(VERIFIER_ROLE)) {
    return ['ludus', 'eval', '--model', model, '--task', task, '--axes', VERIFIER_AXIS, '--generator', base, '--compare', base];
  }
  if (game.protocol.family === 'world') {
    const opponents = Object.keys(game.protocol.scripted ?? {});
    return ['ludus', 'eval', '--game', game.id, '--model', model, ...(opponents.length > 0 ? ['--opponents', opponents.join(',')] : []), '--compare', base];
  }
  // A co-writing policy is scored as it trained: handing off at every word (the eval's default hands off at step ends).
  const axes = coAuthors(game.protocol, game.validateOn).length > 0 ? ['--axes', 'capability,handoff', '--handoff', 'word'] : [];
  const budget = maxNewTokens !== undefined && maxNewTokens !== EVAL_DEFAULTS.maxNewTokens ? ['--max-new-tokens', String(maxNewTokens)] : [];
  return ['ludus', 'eval', '--model', model, '--task', task, ...axes, ...budget, '--compare', base];
}

/**
 * What the printed eval costs, in matches, and its quick form: the task's evaluation plays every problem of its
 * test split several times per model and schedule, more than the run's own end-of-run comparison.
 */
function evalCost(command: readonly string[]): string | undefined {
  if (!command.includes('--task')) return undefined;
  const schedules = command.includes('--handoff') ? 2 : 1;
  const matches = EVAL_DEFAULTS.problems * EVAL_DEFAULTS.samples * schedules * (command.includes('--compare') ? 2 : 1);
  // About 2,400 matches a minute on 2 cores with the shipped base (docs/evaluation.md: an estimate, not a quiet measurement).
  const minutes = Math.max(1, Math.round(matches / 2400));
  return `(${matches.toLocaleString('en')} matches: ${EVAL_DEFAULTS.problems} test problems × ${EVAL_DEFAULTS.samples} samples, ${schedules === 2 ? 'solo and co-written, ' : ''}both models; about ${minutes} minute${minutes === 1 ? '' : 's'} on 2 cores with the shipped base. A quick look: add --problems 32 --samples 2)`;
}

/** A file as the user can type it from here: relative to the working directory where it lies below it. */
function shownPath(file: string): string {
  const near = relative(process.cwd(), file);
  return near !== '' && !near.startsWith('..') && !isAbsolute(near) ? near : file;
}

/** One step's warning, printed as it happens. */
export function idleWarning(step: number, idle: IdlePolicy): string {
  const why = idle.roles.map((r) => `${r.role}: ${r.zeroVarianceGroups ?? '?'} zero-variance group${r.zeroVarianceGroups === 1 ? '' : 's'}`).join('; ');
  return `WARNING step ${step}: policy ${idle.policy} learned nothing (gradient 0${why ? `; ${why}` : ''}): every group's matches paid the same reward\n`;
}

function shortList(steps: readonly number[]): string {
  return steps.length <= 6 ? `steps ${steps.join(', ')}` : `steps ${steps.slice(0, 5).join(', ')}, ..., ${steps.at(-1)}`;
}

export function formatDuration(seconds: number): string {
  const minutes = Math.floor(seconds / 60);
  return minutes > 0 ? `${minutes} min ${Math.round(seconds - 60 * minutes)} s` : `${seconds.toFixed(1)} s`;
}
