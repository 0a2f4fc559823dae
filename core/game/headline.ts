/**
 * The curves a viewer draws first, larger, for a game's runs: metric keys as runs record them (`role/<role>/<name>`,
 * `policy/<policy>/<name>`, `validation/<role>/<name>`, `eval/<opponent>/<name>`, or a bare name), `*` standing for every role, policy or opponent that has
 * the metric. Whether it is learning comes first; engine internals (learning rate, micro-batches, skipped updates)
 * never belong here.
 */
export type Headline = readonly string[];

/** What a game that declares no headline gets: each role's reward and correctness, and validation accuracy. */
export const DEFAULT_HEADLINE: Headline = ['role/*/reward_mean', 'role/*/correct', 'validation/*/accuracy'];

const HEADLINE_KEY = /^((role|policy|validation|eval)\/[^/\s]+\/[^/\s*]+|[^/\s*]+)$/;

/** Why `key` is not a headline key, or undefined when it is one. */
export function headlineKeyProblem(key: unknown): string | undefined {
  if (typeof key !== 'string' || !HEADLINE_KEY.test(key)) return `${JSON.stringify(key)} is not a metric key (role/<role|*>/<name>, policy/<policy|*>/<name>, validation/<role|*>/<name>, eval/<opponent|*>/<name> or a bare name)`;
  return undefined;
}
