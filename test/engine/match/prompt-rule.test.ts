import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composePlugins } from '../../../composition/compose.ts';
import type { Catalog } from '../../../core/catalog.ts';
import type { Problem } from '../../../core/tasks/task.ts';
import { arenaFor } from '../../../engine/match/arena.ts';
import { DecoderPool } from '../../../engine/match/decoder-pool.ts';
import { playMatches } from '../../../engine/match/play-matches.ts';
import { PolicyPool } from '../../../engine/policies/policy-pool.ts';
import { TrainConfigSchema } from '../../../engine/trainer/train-config.ts';
import { EVAL_DEFAULTS } from '../../../lab/eval/evaluate.ts';
import { sampleRollouts } from '../../../lab/eval/sample-rollouts.ts';
import { gradeMath } from '../../../plugins/graders/math/grade-math.ts';
import { taskByName } from '../../../plugins/tasks/registry.ts';
import type { TextTokenizer } from '../../../plugins/tokenizers/hf-tokenizer.ts';

/** The shipped base's tokenizer with a chat template declared, as an instruct model's tokenizer_config.json would. */
function withChatTemplate(tokenizer: TextTokenizer): TextTokenizer {
  const chat_template = '{% for m in messages %}[{{ m.role }}] {{ m.content }}\n{% endfor %}{% if add_generation_prompt %}[assistant]\n{% endif %}';
  return Object.create(tokenizer, { config: { value: { ...tokenizer.config, chat_template } } }) as TextTokenizer;
}

/** Each game at tiny turn budgets, every policy a full copy of the base (no adapters), and the role that solves the problem. */
const GAMES = [
  { game: 'tandem', knobs: {}, solver: 'senior' },
  { game: 'grpo', knobs: {}, solver: 'senior' },
  { game: 'kl-reg', knobs: {}, solver: 'senior' },
  { game: 'tango', knobs: { generatorTokens: 8, verifierTokens: 8 }, solver: 'generator' },
  { game: 'agon', knobs: { turnTokens: 8, adapters: false }, solver: 'drafter' },
] as const;

describe('the prompt rule', () => {
  let catalog: Catalog;
  let problem: Problem;
  let base: PolicyPool;

  beforeAll(async () => {
    catalog = await composePlugins();
    [problem] = (await taskByName('arithmetic')).problems('test', 1);
    base = await PolicyPool.load([{ name: 'base', init: 'default', trainable: false }], { task: 'arithmetic' });
  }, 120_000);

  it('should default to the same mode in a training config and in an evaluation', () => {
    expect(TrainConfigSchema.parse({ game: 'grpo' }).chatTemplate).toBe(EVAL_DEFAULTS.chatTemplate);
  });

  describe('having a model whose tokenizer has a chat template', () => {
    const pools: DecoderPool[] = [];
    afterAll(async () => {
      for (const pool of pools) await pool.release();
    });

    for (const { game: name, knobs, solver } of GAMES) {
      it(`should put the problem to ${name}'s ${solver} in training exactly as an evaluation puts it, and quote it so in every later turn`, async () => {
        const game = catalog.games.create(name, { grader: gradeMath, knobs });
        const pool = await PolicyPool.load(game.policies.map((policy) => ({ name: policy, init: 'default', trainable: false })), { task: 'arithmetic' });
        const decoders = new DecoderPool(pool, { rows: 1, maxLen: pool.policy(game.policies[0]).config.maxPositionEmbeddings, threads: 1 });
        pools.push(decoders);
        const tokenizer = withChatTemplate(pool.tokenizer);
        // As the trainer builds its arena: the training config's chatTemplate.
        const training = arenaFor(game, decoders, tokenizer, pool.policy(game.policies[0]).config.eosTokenIds, { temperature: 1, topP: 1, maxNewTokens: 8 }, { chatTemplate: TrainConfigSchema.parse({ game: name }).chatTemplate });
        expect(training.promptRule).toBe('chat-template');
        const [match] = await playMatches(training, { problems: [problem], copies: 1, seats: game.rotation.at(0).seats, seeds: { generation: 1, schedule: 2 }, label: 'rule' });
        const solving = match.turns.find((turn) => turn.role === solver)!;

        // As an evaluation samples the model alone: EVAL_DEFAULTS' chatTemplate.
        const [[evaluated]] = await sampleRollouts({
          policies: [base.policy('base')],
          tokenizer,
          problems: [problem],
          samples: 1,
          grade: gradeMath,
          seed: 1,
          temperature: 1,
          topP: 1,
          maxNewTokens: 2,
          batch: 1,
          stopTokens: [],
          chatTemplate: EVAL_DEFAULTS.chatTemplate,
        });
        expect(solving.promptIds).toEqual(evaluated.prompt);
        expect(tokenizer.decode(solving.promptIds)).toBe(`[user] ${problem.question} ${problem.instruction}\n[assistant]\n`);
        for (const turn of match.turns) {
          const text = tokenizer.decode(turn.promptIds);
          expect(text, `${name} ${turn.role}`).toContain(`[user] ${problem.question} ${problem.instruction}\n[assistant]\n`);
          expect(text, `${name} ${turn.role}`).not.toContain(problem.prompt);
        }
      }, 120_000);
    }
  });

  describe('having a world game and a model whose tokenizer has a chat template', () => {
    it("should put each seat's observation to the model as one user turn through the template, as SPIRAL does, and plainly with the rule off", async () => {
      const game = catalog.games.create('kuhn-poker', { grader: gradeMath, knobs: {} });
      const pool = await PolicyPool.load(game.policies.map((policy) => ({ name: policy, init: 'default', trainable: false })), { task: 'arithmetic' });
      const decoders = new DecoderPool(pool, { rows: 2, maxLen: pool.policy(game.policies[0]).config.maxPositionEmbeddings, threads: 1 });
      try {
        const tokenizer = withChatTemplate(pool.tokenizer);
        const [deal] = (await taskByName('world')).problems('test', 1);
        const play = async (chatTemplate: 'on' | 'off') => {
          const arena = arenaFor(game, decoders, tokenizer, pool.policy(game.policies[0]).config.eosTokenIds, { temperature: 1, topP: 1, maxNewTokens: 8 }, { chatTemplate });
          const [match] = await playMatches(arena, { problems: [deal], copies: 1, seats: game.rotation.at(0).seats, seeds: { generation: 1, schedule: 2 }, label: 'world' });
          return { arena, first: tokenizer.decode(match.turns[0].promptIds) };
        };
        const on = await play('on');
        expect(on.arena.promptRule).toBe('chat-template');
        expect(on.first.startsWith('[user] ')).toBe(true);
        expect(on.first.endsWith('\n[assistant]\n')).toBe(true);
        const off = await play('off');
        expect(off.arena.promptRule).toBe('plain');
        expect(on.first).toBe(`[user] ${off.first}\n[assistant]\n`);
      } finally {
        await decoders.release();
      }
    }, 120_000);
  });
});
