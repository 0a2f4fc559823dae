import 'reflect-metadata';
import { describe, expect, it } from 'vitest';
import { composePlugins } from '../../composition/compose.ts';
import { alternatingPair } from '../../cli/pair-divergence.ts';
import { idleWarning, runSummary } from '../../cli/run-summary.ts';
import { idlePolicies, type MetricsLine } from '../../engine/trainer/metrics-line.ts';
import { StallWatch, stallCause, stallWarning } from '../../engine/trainer/stall-watch.ts';

const catalog = await composePlugins();
const game = (id: string) => catalog.games.create(id, { grader: catalog.graders.create('math'), knobs: {} });

describe('runSummary (the end of ludus train)', () => {
  describe('having a short tango run inside the verifier warm-up', () => {
    it('should say the generator took no update yet, and from which step it will', () => {
      const tango = game('tango');
      const text = runSummary(
        { steps: 2, checkpointed: 2, best: null },
        { game: tango, out: '/runs/t', task: 'last-letter', trained: [{ name: 'generator', init: 'default' }, { name: 'verifier', init: 'default' }], idle: new Map(), stepsRun: 2 },
        3,
      );
      expect(text).toMatch(/note: policy generator \(generator\) took 0 updates in these 2 steps: rotation warmup\(40:verifier\)\+\S+ first trains it at step 41 \(the steps before are its warm-up\)/);
      expect(text).toContain('evaluate it against its base: npx ludus eval --model /runs/t/checkpoint/policies/generator --task last-letter --compare default');
    });
  });

  describe("having trained Tango's verifier alone (the fixed-generator ablation)", () => {
    it('should evaluate it on the verifier axes, judging the base\'s solutions beside the base', () => {
      const text = runSummary(
        { steps: 2, checkpointed: 2, best: null },
        { game: game('tango'), out: '/runs/v', task: 'arithmetic', trained: [{ name: 'verifier', init: 'default' }], idle: new Map(), stepsRun: 2 },
        3,
      );
      expect(text).toContain('evaluate it against its base: npx ludus eval --model /runs/v/checkpoint/policies/verifier --task arithmetic --axes verifier --generator default --compare default');
    });
  });

  describe('having a world game', () => {
    it('should evaluate the trained player against the reference opponents, not on a task', () => {
      const text = runSummary(
        { steps: 2, checkpointed: 2, best: null },
        { game: game('kuhn-poker'), out: '/runs/k', task: 'world', trained: [{ name: 'player', init: 'default' }], idle: new Map(), stepsRun: 2 },
        3,
      );
      expect(text).toContain('evaluate it against its base: npx ludus eval --game kuhn-poker --model /runs/k/checkpoint/policies/player --opponents random,nash,nash-bluffer --compare default');
    });
  });

  describe('having a best checkpoint and a policy idle at every step', () => {
    it('should print real best/ paths, the accuracy labelled, and a loud warning', () => {
      const text = runSummary(
        { steps: 2, checkpointed: 2, best: { step: 2, accuracy: 0.5, split: 'validation' } },
        { game: game('tandem'), out: '/runs/x', task: 'arithmetic', trained: [{ name: 'senior', init: 'default' }], idle: new Map([['senior', [1, 2]]]), stepsRun: 2 },
        3,
      );
      expect(text).toContain('best validation accuracy of senior (co-written with junior, policy senior) 50.0% at step 2: /runs/x/best/senior');
      expect(text).not.toContain('<policy>');
      expect(text).toContain('WARNING: policy senior learned nothing in this run');
    });
  });
});

describe('runSummary of a resumed co-writing run', () => {
  it('should count the steps this process ran, list the files the run wrote, and print an eval that hands off at every word as training did', () => {
    const text = runSummary(
      { steps: 30, checkpointed: 30, best: null },
      { game: game('tandem'), out: 'runs/tandem', task: 'arithmetic', trained: [{ name: 'senior', init: 'default' }], idle: new Map(), stepsRun: 12, files: ['metrics.jsonl', 'transcripts.jsonl', 'summary.json'], maxNewTokens: 224 },
      81,
    );
    expect(text).toContain('trained tandem for 30 steps (12 in this process, resumed from step 18) in 1 min 21 s');
    expect(text).toContain('files: runs/tandem/metrics.jsonl, transcripts.jsonl, summary.json;');
    expect(text).not.toContain('validation.jsonl');
    expect(text).toContain('evaluate it against its base: npx ludus eval --model runs/tandem/checkpoint/policies/senior --task arithmetic --axes capability,handoff --handoff word --max-new-tokens 224 --compare default');
    expect(text).toMatch(/6,400 matches: 200 test problems × 8 samples, solo and co-written, both models; .* A quick look: add --problems 32 --samples 2/);
  });
});

describe('alternatingPair', () => {
  it("should pair Agon's A and B, who take turns in the challenger's seat, and no policies that keep their roles", () => {
    const of = (id: string, knobs: Record<string, unknown> = {}) => catalog.games.create(id, { grader: catalog.graders.create('math'), knobs });
    expect(alternatingPair(of('agon'), ['A', 'B'])).toEqual(['A', 'B']);
    expect(alternatingPair(of('agon', { fixedRoles: true }), ['A', 'B'])).toBeNull();
    expect(alternatingPair(of('agon'), ['A'])).toBeNull();
    expect(alternatingPair(of('tango'), ['generator', 'verifier'])).toBeNull();
  });
});

describe('runSummary of a pair', () => {
  it('should say how often the two policies answered differently on the same seeds', () => {
    const pair = { policies: ['A', 'B'] as const, problems: 64, samples: 1, problems_differing: 12, samples_differing: 12, problem_share: 12 / 64, sample_share: 12 / 64 };
    const text = runSummary({ steps: 2, checkpointed: 2, best: null }, { game: game('agon'), out: '/runs/a', task: 'arithmetic', trained: [{ name: 'A', init: 'default' }, { name: 'B', init: 'default' }], idle: new Map(), stepsRun: 2, pair }, 3);
    expect(text).toContain('policies A and B, each alone on the same 64 held-out problems and seeds (one answer each): different final answers on 12 (18.8%)');
  });
});

describe('idlePolicies', () => {
  it('should find a policy whose gradient was 0, with its zero-variance groups, and not one that learned or was skipped', () => {
    const metrics = (gradNorm: number | null, skipped = 0) => ({ loss: 0, grad_norm: gradNorm, clip_frac: 0, entropy: 0, lr: 1e-6, micro_batches: 1, skipped_nonfinite: skipped });
    const line = {
      seats: { a: 'p', b: 'q', c: 'r' },
      roles: { a: { reward_mean: 1, answer_present: 1, correct: 1, response_len: 3, zero_variance_groups: 4 }, b: { reward_mean: 0, answer_present: 0, correct: 0, response_len: 3, zero_variance_groups: 1 }, c: { reward_mean: 0, answer_present: 0, correct: 0, response_len: 3 } },
      policies: { p: metrics(0), q: metrics(0.3), r: metrics(null, 1) },
    } as unknown as MetricsLine;
    const idle = idlePolicies(line);
    expect(idle).toEqual([{ policy: 'p', roles: [{ role: 'a', zeroVarianceGroups: 4 }] }]);
    expect(idleWarning(3, idle[0])).toBe("WARNING step 3: policy p learned nothing (gradient 0; a: 4 zero-variance groups): every group's matches paid the same reward\n");
  });
});

describe('StallWatch (no silent null runs)', () => {
  const line = (step: number, gradNorm: number, roles: Record<string, Record<string, number>>) =>
    ({ step, seats: { first: 'player', second: 'player' }, roles: Object.fromEntries(Object.entries(roles).map(([r, m]) => [r, { reward_mean: 0, answer_present: null, correct: null, response_len: 2, zero_variance_groups: 0, ...m }])), policies: { player: { loss: 0, grad_norm: gradNorm, clip_frac: 0, entropy: 0, lr: 3e-4, micro_batches: 1, skipped_nonfinite: 0 } } }) as unknown as MetricsLine;

  it('should warn once when the gradient norm stays under the threshold for several steps, naming every rollout illegal as the cause', () => {
    const watch = new StallWatch();
    const forfeiting = { first: { forfeit: 1, reward_std: 0 }, second: { forfeit: 1, reward_std: 0 } };
    expect(watch.observe(line(1, 0.3, forfeiting))).toEqual([]);
    expect(watch.observe(line(2, 2e-6, forfeiting))).toEqual([]);
    expect(watch.observe(line(3, 5e-15, forfeiting))).toEqual([]);
    const [stall] = watch.observe(line(4, 4e-15, forfeiting));
    expect(stall).toMatchObject({ policy: 'player', from: 2 });
    expect(stallWarning(stall)).toMatch(/stayed under 0.0001 since step 2 .*illegal or unparseable move.*ludus pretrain --plugin FILE --game NAME/);
    expect(watch.observe(line(5, 1e-15, forfeiting))).toEqual([]);
  });

  it('should name a constant reward, or tiny advantages, where the rollouts were legal', () => {
    expect(stallCause(line(1, 0, { first: { forfeit: 0, reward_std: 0 }, second: { forfeit: 0.2, reward_std: 0 } }), 'player')).toMatch(/constant reward/);
    expect(stallCause(line(1, 0, { first: { forfeit: 0, reward_std: 0.5 }, second: { forfeit: 0, reward_std: 0.4 } }), 'player')).toMatch(/advantages are near 0/);
  });

  it("should print the stall in the summary, and the run's --plugin in the command it prints", () => {
    const watch = new StallWatch();
    for (let step = 1; step <= 3; step++) watch.observe(line(step, 1e-9, { first: { forfeit: 1 }, second: { forfeit: 1 } }));
    const text = runSummary(
      { steps: 3, checkpointed: 3, best: null },
      { game: game('tictactoe'), out: 'runs/r', task: 'world', trained: [{ name: 'player', init: 'default' }], idle: new Map(), stepsRun: 3, plugins: [`${process.cwd()}/examples/race/race.ts`], stalls: watch.stalls },
      3,
    );
    expect(text).toContain("WARNING: policy player's gradient norm has stayed under 0.0001 since step 1");
    expect(text).toContain('npx ludus eval --game tictactoe --model runs/r/checkpoint/policies/player --opponents random,minimax --compare default --plugin examples/race/race.ts');
  });
});
