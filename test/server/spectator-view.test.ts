import { describe, expect, it } from 'vitest';
import { composePlugins } from '../../composition/compose.ts';
import type { LudusEvent } from '../../core/events.ts';
import { gameFor } from '../../engine/trainer/run-pieces.ts';
import { spectatorView } from '../../server/spectator-view.ts';

const catalog = await composePlugins();
const tokens = (matchId: string, turn: number, role: string, text: string, seq: number): LudusEvent => ({ type: 'tokens', seq, matchId, turn, position: 0, tokens: [...text].map((_, i) => i + 1), authors: [...text].map(() => role), text });
const turnEnd = (matchId: string, turn: number, role: string, seq: number): LudusEvent => ({ type: 'turn-end', seq, matchId, turn, role, tokenCount: 1, finish: 'stop' });

describe('spectatorView', () => {
  describe("having an agon match's draft streamed in pieces", () => {
    it("should put on the draft's turn-end the summary its challenger reads and the withheld answer, and nothing on the challenge's", () => {
      const view = spectatorView(gameFor(catalog, { game: 'agon', grader: 'math', knobs: {} }).view);
      const pieces = ['Ones: 4 plus 8 is 12. Write 2, carry 1.', '\n\nThe answer is \\boxed{', '52}.'];
      pieces.forEach((piece, i) => view(tokens('m', 0, 'drafter', piece, i + 1)));
      // Another match's turn in between keeps its own text.
      view(tokens('other', 0, 'drafter', 'x \\boxed{7}', 4));
      const ended = view(turnEnd('m', 0, 'drafter', 5));
      expect(ended).toMatchObject({ type: 'turn-end', secret: { summary: 'Ones: 4 plus 8 is 12. Write 2, carry 1.', withheld: '52' } });
      view(tokens('m', 1, 'challenger', 'The answer is \\boxed{52}.', 6));
      expect(view(turnEnd('m', 1, 'challenger', 7))).not.toHaveProperty('secret');
    });
  });

  describe('having a game whose view leaves a spectator no secret', () => {
    it('should pass the turn-end through unchanged', () => {
      const view = spectatorView(gameFor(catalog, { game: 'grpo', grader: 'math', knobs: {} }).view);
      view(tokens('m', 0, 'senior', 'The answer is \\boxed{3}.', 1));
      const event = turnEnd('m', 0, 'senior', 2);
      expect(view(event)).toBe(event);
    });
  });
});
