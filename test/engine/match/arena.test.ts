import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Problem } from '../../../core/tasks/task.ts';
import { arenaFor } from '../../../engine/match/arena.ts';
import { DecoderPool } from '../../../engine/match/decoder-pool.ts';
import { playMatches } from '../../../engine/match/play-matches.ts';
import { PolicyPool } from '../../../engine/policies/policy-pool.ts';
import { grpoGame } from '../../../games/grpo.ts';
import { gradeMath } from '../../../plugins/graders/math/grade-math.ts';
import type { TextTokenizer } from '../../../plugins/tokenizers/hf-tokenizer.ts';
import { taskByName } from '../../../plugins/tasks/registry.ts';

/** The shipped base's tokenizer, with a chat template declared as an instruct model's tokenizer_config.json would. */
function withChatTemplate(tokenizer: TextTokenizer): TextTokenizer {
  const chat_template = '{% for m in messages %}[{{ m.role }}] {{ m.content }}\n{% endfor %}{% if add_generation_prompt %}[assistant]\n{% endif %}';
  return Object.create(tokenizer, { config: { value: { ...tokenizer.config, chat_template } } }) as TextTokenizer;
}

describe('arenaFor', () => {
  const game = grpoGame(undefined, gradeMath);
  let pool: PolicyPool;
  let decoders: DecoderPool;
  let problems: Problem[];
  const sampling = { temperature: 1, topP: 1, maxNewTokens: 8 };

  beforeAll(async () => {
    pool = await PolicyPool.load([{ name: 'senior', init: 'default', trainable: false }], { task: 'arithmetic' });
    decoders = new DecoderPool(pool, { rows: 2, maxLen: pool.policy('senior').config.maxPositionEmbeddings, threads: 1 });
    problems = (await taskByName('arithmetic')).problems('test', 2);
  }, 120_000);

  afterAll(async () => decoders?.release());

  describe('having a tokenizer with a chat template', () => {
    it('should put a problem to the policies as one user turn of question and instruction, with the assistant turn opened', () => {
      const tokenizer = withChatTemplate(pool.tokenizer);
      const arena = arenaFor(game, decoders, tokenizer, [], sampling);
      expect(arena.chatTemplate).toBe('on');
      expect(tokenizer.decode(arena.encodeProblem(problems[0]))).toBe(`[user] ${problems[0].question} ${problems[0].instruction}\n[assistant]\n`);
    });

    it("should give the task's plain prompt with chatTemplate off", () => {
      const arena = arenaFor(game, decoders, withChatTemplate(pool.tokenizer), [], sampling, { chatTemplate: 'off' });
      expect(arena.encodeProblem(problems[0])).toEqual(pool.tokenizer.encode(problems[0].prompt));
    });

    it('should play co-decoded matches from the templated prompt', async () => {
      const arena = arenaFor(game, decoders, withChatTemplate(pool.tokenizer), [], sampling);
      const matches = await playMatches(arena, { problems, copies: 1, seats: game.rotation.at(0).seats, seeds: { generation: 1, schedule: 2 }, label: 'chat' });
      expect(matches.map((match) => match.turns[0].promptIds)).toEqual(problems.map((problem) => arena.encodeProblem(problem)));
      expect(matches[0].turns[0].promptIds).not.toEqual(pool.tokenizer.encode(problems[0].prompt));
    });
  });

  describe('having the shipped base, whose tokenizer has no chat template', () => {
    it("should give the task's plain prompt, chat template on or not", () => {
      const arena = arenaFor(game, decoders, pool.tokenizer, [], sampling);
      expect(arena.encodeProblem(problems[0])).toEqual(pool.tokenizer.encode(problems[0].prompt));
    });
  });
});
