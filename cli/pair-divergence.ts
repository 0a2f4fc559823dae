import type { AnyGame, Catalog } from '../core/catalog.ts';
import type { SequentialProtocol } from '../core/protocols/sequential.ts';
import { finalSeeds } from '../engine/match/match-seeds.ts';
import { checkpointPolicyDir } from '../engine/trainer/run-dir.ts';
import type { TrainConfig } from '../engine/trainer/train-config.ts';
import { policyDivergence, type AnswerDivergence } from '../lab/eval/answer-divergence.ts';
import { loadPolicy } from '../plugins/policies/load-policy.ts';
import { taskByName } from '../plugins/tasks/registry.ts';

/** How the two policies of a run that seats them in turn answer the same held-out problems, each alone on the same seeds. */
export interface PairDivergence extends AnswerDivergence {
  readonly policies: readonly [string, string];
}

/**
 * The two trained policies of a game that seats them in turn in the validated role (Agon's A and B, roles swapping), or
 * null: comparing the answers of two policies that play different roles says nothing of either.
 */
export function alternatingPair(game: AnyGame, trained: readonly string[]): [string, string] | null {
  if (game.policies.length !== 2 || !game.policies.every((name) => trained.includes(name))) return null;
  const role = game.validateOn;
  return game.rotation.at(0).seats[role] !== game.rotation.at(1).seats[role] ? [game.policies[0], game.policies[1]] : null;
}

/**
 * The end-of-run comparison of such a pair (issue 25: "report how often A and B sample different answers on the same
 * seeds"): each checkpointed policy answers the `finalComparison` held-out test problems alone, from the plain prompt,
 * once each on the final comparison's seed, at the game's turn cap; null for any other game or without the comparison.
 */
export async function pairDivergence(game: AnyGame, catalog: Catalog, config: TrainConfig, out: string, trained: readonly string[], threads?: number): Promise<PairDivergence | null> {
  const pair = alternatingPair(game, trained);
  if (pair === null || config.finalComparison === 0) return null;
  const [a, b] = await Promise.all(pair.map((name) => loadPolicy(checkpointPolicyDir(out, name), name)));
  const task = await taskByName(config.task);
  const protocol = game.protocol as SequentialProtocol<string, unknown>;
  const cap = protocol.family === 'sequential' ? Math.max(...protocol.turns.map((turn) => turn.maxTokens)) : config.maxNewTokens;
  const divergence = await policyDivergence(a.policy, b.policy, {
    tokenizer: a.tokenizer ?? b.tokenizer!,
    problems: task.problems('test', config.finalComparison),
    samples: 1,
    grade: catalog.graders.create(config.grader),
    seed: finalSeeds(config.seed).generation,
    chatTemplate: config.chatTemplate,
    temperature: config.temperature,
    topP: config.topP,
    maxNewTokens: cap,
    stopTokens: a.policy.config.eosTokenIds,
    batch: Math.min(config.finalComparison, config.problemsPerStep * config.groupSize),
    ...(threads ? { threads } : {}),
  });
  return { policies: pair, ...divergence };
}

/** The summary's line for it. */
export function pairDivergenceLine(d: PairDivergence): string {
  return `  policies ${d.policies[0]} and ${d.policies[1]}, each alone on the same ${d.problems} held-out problems and seeds (one answer each): different final answers on ${d.problems_differing} (${(100 * d.problem_share).toFixed(1)}%)`;
}
