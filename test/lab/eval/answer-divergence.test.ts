import { beforeAll, describe, expect, it } from 'vitest';
import { PolicyPool } from '../../../engine/policies/policy-pool.ts';
import { answerDivergence, finalAnswer, policyDivergence } from '../../../lab/eval/answer-divergence.ts';
import { parseLoraConfig } from '../../../native/model/lora-config.ts';
import { gradeMath } from '../../../plugins/graders/math/grade-math.ts';
import { taskByName } from '../../../plugins/tasks/registry.ts';
import { rejection } from '../../support/errors.ts';

describe('finalAnswer', () => {
  it("should read the last box's content, trimmed, and give null without one", () => {
    expect(finalAnswer('first \\boxed{3}, then \\boxed{ 42 }.')).toBe('42');
    expect(finalAnswer('no box here: 42')).toBeNull();
  });
});

describe('answerDivergence', () => {
  it('should count the problems and the samples whose final answers differ, position by position', () => {
    const a = [
      ['1', '2'],
      ['3', null],
      ['5', '6'],
    ];
    const b = [
      ['1', '2'],
      ['4', null],
      ['7', '8'],
    ];
    expect(answerDivergence(a, a)).toEqual({ problems: 3, samples: 2, problems_differing: 0, samples_differing: 0, problem_share: 0, sample_share: 0 });
    expect(answerDivergence(a, b)).toEqual({ problems: 3, samples: 2, problems_differing: 2, samples_differing: 3, problem_share: 2 / 3, sample_share: 3 / 6 });
  });

  it('should refuse sides that did not answer the same problems and samples', async () => {
    expect((await rejection((async () => answerDivergence([['1']], [['1', '2']]))())).code).toBe('INPUT_INVALID');
    expect((await rejection((async () => answerDivergence([], []))())).code).toBe('INPUT_INVALID');
  });
});

describe('policyDivergence', () => {
  describe('having adapters over the shipped arithmetic base: two built alike and one built otherwise', () => {
    let pool: PolicyPool;
    const adapter = (seed: number, initStdB: number) => ({ ...parseLoraConfig({ r: 8, initStdB }), seed });
    beforeAll(async () => {
      pool = await PolicyPool.load(
        [
          { name: 'A', init: 'default', trainable: true, adapter: adapter(1, 0.05) },
          { name: 'A again', init: 'default', trainable: true, adapter: adapter(1, 0.05) },
          { name: 'other', init: 'default', trainable: true, adapter: adapter(2, 0.5) },
        ],
        { task: 'arithmetic' },
      );
    }, 120_000);

    it('should find no differing answer between identical adapters on the same seeds, and some between different ones', { timeout: 300_000 }, async () => {
      const task = await taskByName('arithmetic');
      const options = {
        tokenizer: pool.tokenizer,
        problems: task.problems('test', 4),
        samples: 2,
        grade: gradeMath,
        seed: 7,
        temperature: 1,
        topP: 1,
        maxNewTokens: 64,
        stopTokens: pool.policy('A').config.eosTokenIds,
        batch: 8,
        threads: 1,
      };
      const alike = await policyDivergence(pool.policy('A'), pool.policy('A again'), options);
      expect(alike).toMatchObject({ problems: 4, samples: 2, problems_differing: 0, samples_differing: 0 });
      const apart = await policyDivergence(pool.policy('A'), pool.policy('other'), options);
      expect(apart.samples_differing).toBeGreaterThan(0);
      expect(apart.problems_differing).toBeGreaterThan(0);
      expect(apart.samples_differing).toBeLessThanOrEqual(8);
    });
  });
});
