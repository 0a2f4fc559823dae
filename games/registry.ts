import type { Plugin } from '../core/plugin.ts';
import { PluginSet } from '../core/plugin.ts';
import type { Grader } from '../core/grading/verdict.ts';
import type { RlGame } from '../core/game/rl-game.ts';
import { grpoGame } from './grpo.ts';
import { klRegGame } from './kl-reg.ts';
import { tandemGame, type TandemOptions } from './tandem.ts';

/** Per-game knobs a training config may set. */
export interface GameKnobs {
  tandem?: TandemOptions;
  klReg?: { beta?: number };
  /** The grader the reward pays by (resolved from the catalog's graders by the config's `grader`); math when absent. */
  grade?: Grader;
}

export type RlGamePlugin = Plugin<RlGame<string>, GameKnobs>;

/** The games `ludus train` knows, as plugins built from the training config's knobs. */
export const RL_GAME_PLUGINS: readonly RlGamePlugin[] = [
  { name: 'tandem', create: (knobs) => tandemGame(knobs.tandem, knobs.grade) as RlGame<string> },
  { name: 'grpo', create: (knobs) => grpoGame(knobs.grade) as RlGame<string> },
  { name: 'kl-reg', create: (knobs) => klRegGame(knobs.klReg, knobs.grade) as RlGame<string> },
];

export const RL_GAME_NAMES = ['tandem', 'grpo', 'kl-reg'] as const;

export function rlGameByName(name: string, knobs: GameKnobs = {}): RlGame<string> {
  return new PluginSet('game', RL_GAME_PLUGINS).create(name, knobs);
}
