import { definePlugin } from '../core/plugin-module.ts';
import { agonGame } from './agon/agon.ts';
import { grpoGame } from './grpo.ts';
import { klRegGame } from './kl-reg.ts';
import { kuhnPokerGame } from './kuhn-poker.ts';
import { kuhnPokerMatchGame } from './kuhn-poker-match.ts';
import { negotiationGame } from './negotiation.ts';
import { tandemGame } from './tandem.ts';
import { tangoGame } from './tango.ts';
import { ticTacToeGame } from './tictactoe.ts';

/** The papers' games, as a plugin module of the same shape a user's `--plugin` file exports. */
export const builtInGames = definePlugin({
  name: 'ludus-games',
  games: [
    { name: 'tandem', create: ({ grader, knobs }) => tandemGame(knobs, grader) },
    { name: 'grpo', create: ({ grader, knobs }) => grpoGame(knobs, grader) },
    { name: 'kl-reg', create: ({ grader, knobs }) => klRegGame(knobs, grader) },
    { name: 'tango', create: ({ grader, knobs }) => tangoGame(knobs, grader) },
    { name: 'agon', create: ({ grader, knobs }) => agonGame(knobs, grader) },
    { name: 'tictactoe', create: ({ knobs }) => ticTacToeGame(knobs) },
    { name: 'kuhn-poker', create: ({ knobs }) => kuhnPokerGame(knobs) },
    { name: 'kuhn-poker-match', create: ({ knobs }) => kuhnPokerMatchGame(knobs) },
    { name: 'negotiation', create: ({ knobs }) => negotiationGame(knobs) },
  ],
});
