import { ContainerModule } from 'inversify';
import { fail } from '../../core/errors.ts';
import { CoDecoding } from '../../core/protocols/co-decoding.ts';
import type { Protocol } from '../../core/protocols/protocol.ts';
import type { Problem } from '../../core/tasks/task.ts';
import type { Plugin } from '../../core/plugin.ts';
import { PROTOCOL_PLUGIN } from './tokens.ts';

/** What a protocol is built from: the roles in the order the preset reads them, and its knobs (absent = paper value). */
export interface ProtocolOptions {
  readonly roles: readonly string[];
  /** Bernoulli p of the first role (word handoff: the senior; step handoff: authors[0]). */
  readonly p?: number;
  /** Word handoff's backstop: redraw after K non-boundary tokens. */
  readonly K?: number;
  /** Step handoff's first author; absent, drawn by Bernoulli(p). */
  readonly first?: string;
}

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
      return CoDecoding.wordHandoff({ senior, junior, p: options.p, K: options.K });
    },
  },
  ...(['alternate', 'bernoulli'] as const).map(
    (mode): ProtocolPlugin => ({
      name: `step-handoff-${mode}`,
      create: (options) => {
        const [a, b] = rolesOf(`step-handoff-${mode}`, options, 2);
        return CoDecoding.stepHandoff({ authors: [a, b], mode, p: options.p, first: options.first });
      },
    }),
  ),
];

export const protocolsModule = new ContainerModule(({ bind }) => {
  for (const plugin of PROTOCOL_PLUGINS) bind(PROTOCOL_PLUGIN).toConstantValue(plugin);
});
