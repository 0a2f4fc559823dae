import { fail } from '../core/errors.ts';
import { gameFor } from '../engine/trainer/run-pieces.ts';
import { evaluateWorld, pairedWorldResult, SPIRAL_EVAL_SAMPLING, worldExploitability, worldProtocolOf, type PairedWorldResult, type ExploitabilityResult, type OpponentResult, type Rate, type WorldEvalOptions } from '../lab/eval/world-eval.ts';
import { resolveModelDir } from '../plugins/policies/default-model.ts';
import { resolve } from 'node:path';
import { composePlugins } from '../composition/compose.ts';
import { loadPluginFiles } from '../composition/plugin-files.ts';

/** `ludus eval --game G`: the models, the opponents and the match count, from the command line. */
export interface WorldEvalModeOptions extends Omit<WorldEvalOptions, 'game' | 'modelDir'> {
  readonly game: string;
  /** `--model`, then `--compare` when given: each evaluated the same way, on the same deals and seeds. */
  readonly models: readonly string[];
  /** `--plugin` files registering the game (a user's world game). */
  readonly plugins?: readonly string[];
}

export interface WorldEvalModeResult {
  readonly model: string;
  /** How the model's moves were sampled against the opponents (SPIRAL_EVAL_SAMPLING unless the command said otherwise). */
  readonly sampling: { readonly temperature: number; readonly topP: number };
  readonly opponents: readonly OpponentResult[];
  /** Games with exact measures (kuhn-poker): the exploitability of the model's policy. */
  readonly exploitability?: ExploitabilityResult;
  /** With --compare, on the first model's entry: it against the compared model, match by match on the same deals. */
  readonly paired?: readonly PairedWorldResult[];
}

/** Each model against each reference opponent (win/draw/loss ± SE), and its exact exploitability where the game has one. */
export async function worldEvalMode(options: WorldEvalModeOptions): Promise<WorldEvalModeResult[]> {
  const catalog = await composePlugins(await loadPluginFiles((options.plugins ?? []).map((file) => resolve(file))));
  const game = gameFor(catalog, { game: options.game, knobs: {}, grader: 'math' });
  const protocol = worldProtocolOf(game);
  if (options.opponents.length === 0 && !protocol.world.exact) fail('INPUT_INVALID', `--opponents: name at least one of ${Object.keys(protocol.scripted ?? {}).join(', ')}`, { flag: 'opponents' });
  const results: WorldEvalModeResult[] = [];
  const report = options.onProgress;
  for (const model of options.models) {
    const modelDir = resolveModelDir(model, 'world');
    const opponents =
      options.opponents.length > 0
        ? await evaluateWorld({ game, modelDir, opponents: options.opponents, matches: options.matches, seed: options.seed, temperature: options.temperature, topP: options.topP, threads: options.threads, onProgress: report && ((label, done, total) => report(`${model} ${label}`, done, total)) })
        : [];
    const exploitability = protocol.world.exact ? await worldExploitability({ game, modelDir, threads: options.threads }) : undefined;
    results.push({ model, sampling: { temperature: options.temperature, topP: options.topP }, opponents, ...(exploitability ? { exploitability } : {}) });
  }
  const [first, compared] = results;
  if (compared && first.opponents.length > 0) results[0] = { ...first, paired: first.opponents.map((o, i) => pairedWorldResult(o, compared.opponents[i])) };
  return results;
}

const pct = (r: Rate) => `${(100 * r.rate).toFixed(1)} ± ${(100 * r.se).toFixed(1)}`;

/** The results as a table: one row per model and opponent, then the exploitabilities. */
export function summarizeWorldEval(game: string, results: readonly WorldEvalModeResult[]): string {
  const lines = [`game ${game}`];
  if (results.some((r) => r.opponents.length > 0)) {
    for (const { model, sampling } of results) lines.push(`${model}'s moves sampled at T ${sampling.temperature}, top-p ${sampling.topP}${sampling.temperature === SPIRAL_EVAL_SAMPLING.temperature && sampling.topP === SPIRAL_EVAL_SAMPLING.topP ? " (SPIRAL's evaluation setting)" : " (not SPIRAL's evaluation setting, T 0.6, top-p 0.95)"}`);
    lines.push('model | opponent | matches | win % | draw % | loss % | draw-or-win % | forfeit % | payoff | other');
    for (const { model, opponents } of results) {
      for (const o of opponents) {
        const other = [...Object.entries(o.labels).map(([k, v]) => `${k} ${v.toFixed(3)}`), ...(o.surplusShare ? [`surplus share ${o.surplusShare.rate.toFixed(3)} ± ${o.surplusShare.se.toFixed(3)}`] : [])].join(', ');
        lines.push(`${model} | ${o.opponent} | ${o.matches} | ${pct(o.win)} | ${pct(o.draw)} | ${pct(o.loss)} | ${pct(o.drawOrWin)} | ${pct(o.forfeit)} | ${o.payoff.rate.toFixed(3)} ± ${o.payoff.se.toFixed(3)} | ${other}`);
      }
    }
  }
  for (const { model, paired } of results) {
    for (const p of paired ?? []) {
      const other = results[1]?.model ?? 'the other';
      lines.push(
        `${model} against ${other} vs ${p.opponent}, match by match on the same ${p.matches} deals and seeds: won ${p.wins.onlyModel} that ${other} did not (${other} forfeited ${p.gainedFrom.forfeit}, lost ${p.gainedFrom.loss} by play, drew ${p.gainedFrom.draw} of them), ${other} won ${p.wins.onlyOther} that ${model} did not: McNemar exact p ${p.wins.p.toFixed(4)}; draw-or-win ${p.drawOrWin.onlyModel} against ${p.drawOrWin.onlyOther}, p ${p.drawOrWin.p.toFixed(4)}`,
      );
    }
  }
  for (const { model, exploitability } of results) if (exploitability) lines.push(`exploitability of ${model}: ${exploitability.exploitability.toFixed(4)} (exact, of the one-hand game ${game}, from its move probabilities at all ${Object.keys(exploitability.policy).length} information sets: no sampling)`);
  return `${lines.join('\n')}\n`;
}
