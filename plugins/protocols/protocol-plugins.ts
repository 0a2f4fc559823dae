import type { ProtocolOptions } from '../../core/catalog.ts';
import { fail } from '../../core/errors.ts';
import type { Plugin } from '../../core/plugin.ts';
import { CoDecoding } from '../../core/protocols/co-decoding.ts';
import type { Protocol } from '../../core/protocols/protocol.ts';
import type { Problem } from '../../core/tasks/task.ts';

export type ProtocolPlugin = Plugin<Protocol<string, Problem>, ProtocolOptions>;

function rolesOf(name: string, options: ProtocolOptions, count: number): string[] {
  if (options.roles.length !== count) fail('CONFIG_INVALID', `protocol "${name}" takes ${count} role(s), got ${options.roles.length}`, { protocol: name });
  return [...options.roles];
}

/** The co-decoding presets: solo, word handoff (Tandem RL), reasoning-step handoff by alternation or Bernoulli. */
export const PROTOCOL_PLUGINS: readonly ProtocolPlugin[] = [
  { name: 'solo', create: (options) => CoDecoding.solo(rolesOf('solo', options, 1)[0]) },
  {
    name: 'word-handoff',
    create: (options) => {
      const [senior, junior] = rolesOf('word-handoff', options, 2);
      return CoDecoding.wordHandoff({ senior, junior, p: options.p, K: options.K, shareBand: options.shareBand });
    },
  },
  ...(['alternate', 'bernoulli'] as const).map(
    (mode): ProtocolPlugin => ({
      name: `step-handoff-${mode}`,
      create: (options) => {
        const [a, b] = rolesOf(`step-handoff-${mode}`, options, 2);
        return CoDecoding.stepHandoff({ authors: [a, b], mode, p: options.p, first: options.first, shareBand: options.shareBand });
      },
    }),
  ),
];
