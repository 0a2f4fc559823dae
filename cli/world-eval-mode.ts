import type { AnyGame } from '../core/catalog.ts';
import { fail, LudusError } from '../core/errors.ts';
import { SETUP_CHANCE } from '../core/world/game-tree.ts';
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
  /** Games whose tree is small enough (kuhn-poker, leduc-holdem): the exact exploitability of the model's policy. */
  readonly exploitability?: ExploitabilityResult;
  /** Why no exploitability was computed (the tree is too large, the setup draws chance). */
  readonly exactSkipped?: string;
  /** With --compare, on the first model's entry: it against the compared model, match by match on the same deals. */
  readonly paired?: readonly PairedWorldResult[];
}

/** The exact exploitability where the game's tree can be enumerated within its limit; otherwise why not. */
async function exactOrWhyNot(game: AnyGame, modelDir: string, threads: number | undefined): Promise<{ exploitability?: ExploitabilityResult; exactSkipped?: string }> {
  try {
    return { exploitability: await worldExploitability({ game, modelDir, threads }) };
  } catch (error) {
    if (LudusError.is(error, 'WORLD_TOO_LARGE') || (LudusError.is(error, 'WORLD_INVALID') && error.details.reason === SETUP_CHANCE)) return { exactSkipped: error.message };
    throw error;
  }
}

/** Each model against each reference opponent (win/draw/loss ± SE), and its exact exploitability where the game has one. */
export async function worldEvalMode(options: WorldEvalModeOptions): Promise<WorldEvalModeResult[]> {
  const catalog = await composePlugins(await loadPluginFiles((options.plugins ?? []).map((file) => resolve(file))));
  const game = gameFor(catalog, { game: options.game, knobs: {}, grader: 'math' });
  const protocol = worldProtocolOf(game);
  const results: WorldEvalModeResult[] = [];
  const report = options.onProgress;
  for (const model of options.models) {
    const modelDir = resolveModelDir(model, 'world');
    const opponents =
      options.opponents.length > 0
        ? await evaluateWorld({ game, modelDir, opponents: options.opponents, ...(options.endpoints ? { endpoints: options.endpoints } : {}), matches: options.matches, seed: options.seed, temperature: options.temperature, topP: options.topP, threads: options.threads, onProgress: report && ((label, done, total) => report(`${model} ${label}`, done, total)) })
        : [];
    const exact = await exactOrWhyNot(game, modelDir, options.threads);
    if (opponents.length === 0 && !exact.exploitability) fail('INPUT_INVALID', `--opponents: name at least one of ${Object.keys(protocol.scripted ?? {}).join(', ')} (game "${game.id}" has no exact measures: ${exact.exactSkipped})`, { flag: 'opponents' });
    results.push({ model, sampling: { temperature: options.temperature, topP: options.topP }, opponents, ...exact });
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
        const asked = o.endpoint ? [`${o.endpoint.calls} requests, ${o.endpoint.promptTokens} prompt and ${o.endpoint.completionTokens} completion tokens, ${o.endpoint.retries} retries`] : [];
        lines.push(`${model} | ${o.opponent} | ${o.matches} | ${pct(o.win)} | ${pct(o.draw)} | ${pct(o.loss)} | ${pct(o.drawOrWin)} | ${pct(o.forfeit)} | ${o.payoff.rate.toFixed(3)} ± ${o.payoff.se.toFixed(3)} | ${[other, ...asked].filter((x) => x !== '').join(', ')}`);
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
  for (const { model, exploitability, exactSkipped } of results) {
    if (exploitability) lines.push(`exploitability of ${model}: ${exploitability.exploitability.toFixed(4)} (exact, from its move probabilities at all ${Object.keys(exploitability.policy).length} information sets of a ${exploitability.nodes}-node tree)`);
    else if (exactSkipped) lines.push(`exploitability of ${model}: not computed: ${exactSkipped.replace(/^\[[A-Z_]+\] /, '')}`);
  }
  return `${lines.join('\n')}\n`;
}
