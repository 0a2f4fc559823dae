import { describe, expect, it } from 'vitest';
import { builtInGames } from '../../games/index.js';
import { runLudus } from '../support/cli.js';

describe('ludus train --help', () => {
  it('names every registered game', async () => {
    const result = await runLudus(['train', '--help']);
    expect(result.code).toBe(0);
    const help = result.stdout.replace(/\s+/g, ' ');
    const names = (builtInGames.games ?? []).map((game) => game.name);
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) expect(help).toContain(name);
  });
});
