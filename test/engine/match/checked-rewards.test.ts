import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Game } from '../../../core/game/define-game.ts';
import type { MatchState } from '../../../core/game/match-state.ts';
import { checkedRewards } from '../../../engine/match/checked-rewards.ts';
import { rejection } from '../../support/errors.ts';

const INDEX = new URL('../../../index.ts', import.meta.url).pathname;

/** A user's game module in a directory of its own: two roles, the reward rule given as source text on line 5. */
async function userGame(reward: string): Promise<{ game: Game; file: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'ludus-user-game-'));
  const file = join(dir, 'my-game.ts');
  await writeFile(
    file,
    [
      `import { CoDecoding, defineGame } from ${JSON.stringify(INDEX)};`,
      '',
      'export const game = defineGame({',
      "  id: 'my-game', roles: ['writer', 'judge'], protocol: CoDecoding.solo('writer'), trainable: ['writer'],",
      `  rewards: ${reward},`,
      '});',
      '',
    ].join('\n'),
  );
  const module = (await import(pathToFileURL(file).href)) as { game: Game };
  return { game: module.game, file };
}

const state = { matchId: 'step-0/p/0', seed: 1, problem: { id: 'p', question: 'q', instruction: '', prompt: 'q', answer: '1', solution: '', steps: [], meta: {} }, transcript: [], finished: true } as unknown as MatchState<string, never>;

describe('checkedRewards (every match scored by its game, checked)', () => {
  describe('having a reward rule that pays every role a finite number', () => {
    it('should pass its rewards through', async () => {
      const { game } = await userGame("() => ({ outcome: { writer: 1, judge: 0 }, steps: { writer: [{ position: 0, value: 0.5 }] } })");
      expect(await checkedRewards(game, state)).toEqual({ outcome: { writer: 1, judge: 0 }, steps: { writer: [{ position: 0, value: 0.5 }] } });
    });
  });

  const cases: [string, string, string, RegExp][] = [
    ['throws', "() => { throw new Error('no verdict parsed') }", 'REWARD_FAILED', /^\[REWARD_FAILED\] game "my-game": its reward rule threw while scoring match step-0\/p\/0 \(roles writer, judge\) \((?<file>\/[^:]+):5\): Error: no verdict parsed$/],
    ['gives NaN', '() => ({ outcome: { writer: 1, judge: Number.NaN } })', 'REWARD_INVALID', /^\[REWARD_INVALID\] game "my-game": its reward rule, defined at (?<file>\/[^:]+):3, gave role "judge" NaN on match step-0\/p\/0; every role \(writer, judge\) needs a finite number in outcome$/],
    ['leaves out a role', '() => ({ outcome: { writer: 1 } })', 'REWARD_INVALID', /^\[REWARD_INVALID\] game "my-game": its reward rule, defined at (?<file>\/[^:]+):3, left out role "judge" on match step-0\/p\/0/],
    ['pays a role it does not have', '() => ({ outcome: { writer: 1, judge: 0, critic: 1 } })', 'REWARD_INVALID', /paid "critic", which is not one of its roles/],
    ['gives a step reward that is not finite', '() => ({ outcome: { writer: 1, judge: 0 }, steps: { writer: [{ position: 0, value: Infinity }] } })', 'REWARD_INVALID', /gave role "writer" a step reward of Infinity/],
    ['returns no outcome', '() => ({})', 'REWARD_INVALID', /returned \{\} without an outcome object/],
  ];
  for (const [what, reward, code, message] of cases) {
    describe(`having a reward rule that ${what}`, () => {
      it('should fail with a coded error naming the game, the role, the file and the line', async () => {
        const { game, file } = await userGame(reward);
        const error = await rejection(checkedRewards(game, state));
        expect(error.code).toBe(code);
        const match = message.exec(error.message);
        expect(match, error.message).not.toBeNull();
        if (match!.groups?.file) expect(match!.groups.file).toBe(file);
      });
    });
  }
});
