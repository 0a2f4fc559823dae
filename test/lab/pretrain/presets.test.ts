import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { catalogWorlds } from '../../../composition/catalog-worlds.ts';
import { PRETRAIN_PRESETS, PretrainConfigSchema } from '../../../lab/pretrain/pretrain-config.ts';
import { pretrain } from '../../../lab/pretrain/pretrain.ts';

describe("pretrain's world task with a teacher", () => {
  const dirs: string[] = [];
  afterAll(async () => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

  const refused = async (taskOptions: Record<string, unknown>) => {
    const out = await mkdtemp(join(tmpdir(), 'ludus-teacher-'));
    dirs.push(out);
    const config = PretrainConfigSchema.parse({ ...PRETRAIN_PRESETS['kuhn-poker'], taskOptions, steps: 1 });
    return pretrain({ out, config, threads: 1, worlds: await catalogWorlds() });
  };

  it('should refuse a teacher the game does not have, naming the ones it has', async () => {
    await expect(refused({ game: 'kuhn-poker', legalLine: true, teacher: 'minimax', teacherShare: 0.5 })).rejects.toThrow(/CONFIG_INVALID.*"kuhn-poker".*random, nash, nash-bluffer.*"minimax"/);
  });

  it('should refuse a teacher without its share, and a share outside [0, 1]', async () => {
    await expect(refused({ game: 'kuhn-poker', teacher: 'nash' })).rejects.toThrow(/CONFIG_INVALID.*"teacher" and "teacherShare" go together/);
    await expect(refused({ game: 'kuhn-poker', teacher: 'nash', teacherShare: 2 })).rejects.toThrow(/CONFIG_INVALID.*teacherShare must be a number in \[0, 1\], got 2/);
  });
});

describe('the shipped judging base', () => {
  it('should record exactly the config its preset parses to (the two-stage recipe reproduces it)', async () => {
    const { readFile } = await import('node:fs/promises');
    const shipped = JSON.parse(await readFile('models/arithmetic-judge/pretrain_config.json', 'utf8')) as unknown;
    expect(shipped).toEqual(JSON.parse(JSON.stringify(PretrainConfigSchema.parse(PRETRAIN_PRESETS['arithmetic-judge']))));
  });
});

describe("the calc game's shipped base", () => {
  it('should record exactly the config its preset parses to (`npx ludus pretrain --preset multiplication` reproduces it)', async () => {
    const { readFile } = await import('node:fs/promises');
    const shipped = JSON.parse(await readFile('models/multiplication/pretrain_config.json', 'utf8')) as unknown;
    expect(shipped).toEqual(JSON.parse(JSON.stringify(PretrainConfigSchema.parse(PRETRAIN_PRESETS.multiplication))));
  });
});

describe("a base of a user's world game's own (pretrainWorldBase, `ludus pretrain --plugin FILE --game NAME`)", () => {
  it("should train the shipped world base further on the game's positions, with made-up games mixed in, and save it", async () => {
    const { pretrainWorldBase } = await import('../../../lab/pretrain/pretrain-world.ts');
    const { raceWorld } = await import('../../../examples/race/race.ts');
    const { readFile } = await import('node:fs/promises');
    const out = await mkdtemp(join(tmpdir(), 'ludus-race-base-'));
    const { modelDir, steps } = await pretrainWorldBase({ world: raceWorld, out, threads: 1, config: { steps: 2, batch: 4, checkpointEvery: 1 } });
    expect(steps).toBe(2);
    const recorded = JSON.parse(await readFile(join(modelDir, 'pretrain_config.json'), 'utf8')) as { task: string; taskOptions: unknown; alsoTasks: { task: string }[]; init: string };
    expect(recorded).toMatchObject({ task: 'world', taskOptions: { game: 'race' }, init: 'models/world', alsoTasks: [{ task: 'world-formats' }] });
    await rm(out, { recursive: true, force: true });
  }, 120_000);
});

describe('the shipped world base', () => {
  it('should record exactly the config its preset parses to', async () => {
    const { readFile } = await import('node:fs/promises');
    const shipped = JSON.parse(await readFile('models/world/pretrain_config.json', 'utf8')) as unknown;
    expect(shipped).toEqual(JSON.parse(JSON.stringify(PretrainConfigSchema.parse(PRETRAIN_PRESETS.world))));
  });
});
