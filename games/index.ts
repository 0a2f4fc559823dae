import { definePlugin } from '../core/plugin-module.ts';
import { grpoGame } from './grpo.ts';
import { klRegGame } from './kl-reg.ts';
import { tandemGame } from './tandem.ts';

/** The papers' games, as a plugin module of the same shape a user's `--plugin` file exports. */
export const builtInGames = definePlugin({
  name: 'ludus-games',
  games: [
    { name: 'tandem', create: ({ grader, knobs }) => tandemGame(knobs, grader) },
    { name: 'grpo', create: ({ grader, knobs }) => grpoGame(knobs, grader) },
    { name: 'kl-reg', create: ({ grader, knobs }) => klRegGame(knobs, grader) },
  ],
});
