import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gameBase } from '../../cli/commands/experiment.ts';
import { composePlugins } from '../../composition/compose.ts';
import { DEFAULT_MODELS_DIR } from '../../plugins/policies/default-model.ts';

describe('gameBase (what "model": "default" means in an experiment)', () => {
  it("should be the game's own shipped base where the task is that base's, as ludus train takes it", async () => {
    const catalog = await composePlugins();
    const config = { model: 'default', task: 'arithmetic' };
    expect(gameBase(catalog, 'agon', config as never)).toBe(join(DEFAULT_MODELS_DIR, 'arithmetic-judge'));
    expect(gameBase(catalog, 'tango', config as never)).toBe(join(DEFAULT_MODELS_DIR, 'arithmetic-judge'));
  });

  it('should leave the plain default where the task is another (Tango on last-letter) or a model is named', async () => {
    const catalog = await composePlugins();
    expect(gameBase(catalog, 'tango', { model: 'default', task: 'last-letter' } as never)).toBeUndefined();
    expect(gameBase(catalog, 'agon', { model: 'models/arithmetic', task: 'arithmetic' } as never)).toBeUndefined();
  });
});
