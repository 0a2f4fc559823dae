import { definePlugin } from '../core/plugin-module.ts';
import { agonGame } from './agon/agon.ts';
import { calcGame } from './calc.ts';
import { grpoGame } from './grpo.ts';
import { klRegGame } from './kl-reg.ts';
import { kuhnPokerGame } from './kuhn-poker.ts';
import { kuhnPokerMatchGame } from './kuhn-poker-match.ts';
import { negotiationGame } from './negotiation.ts';
import { leducGame } from './leduc-holdem.ts';
import { liarsDiceGame } from './liars-dice.ts';
import { connectFourGame } from './connect-four.ts';
import { tradeGame } from './trade.ts';
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
    { name: 'calc', create: ({ grader, knobs }) => calcGame(knobs, grader) },
    { name: 'leduc-holdem', create: ({ knobs }) => leducGame(knobs) },
    { name: 'liars-dice', create: ({ knobs }) => liarsDiceGame(knobs) },
    { name: 'connect-four', create: ({ knobs }) => connectFourGame(knobs) },
    { name: 'trade', create: ({ knobs }) => tradeGame(knobs) },
  ],
});
