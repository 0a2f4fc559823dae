import { fail } from '../core/errors.ts';
import type { RlGame } from '../plugins/training/rl-game.ts';
import { grpoGame } from './grpo.ts';
import { klRegGame } from './kl-reg.ts';
import { tandemGame, type TandemOptions } from './tandem.ts';

/** Per-game knobs a training config may set. */
export interface GameKnobs {
  tandem?: TandemOptions;
  klReg?: { beta?: number };
}

export const RL_GAME_NAMES = ['tandem', 'grpo', 'kl-reg'] as const;

export function rlGameByName(name: string, knobs: GameKnobs = {}): RlGame<string> {
  switch (name) {
    case 'tandem':
      return tandemGame(knobs.tandem) as RlGame<string>;
    case 'grpo':
      return grpoGame() as RlGame<string>;
    case 'kl-reg':
      return klRegGame(knobs.klReg) as RlGame<string>;
    default:
      return fail('CONFIG_INVALID', `no game "${name}" (known: ${RL_GAME_NAMES.join(', ')})`, { game: name });
  }
}
