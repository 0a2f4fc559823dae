import { readdir } from 'node:fs/promises';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';

describe('cli/commands', () => {
  it('should hold one file per top-level command, named after the command it registers (ludus loads only that file)', async () => {
    const dir = new URL('../../cli/commands/', import.meta.url);
    const files = (await readdir(dir)).filter((file) => file.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(5);
    for (const file of files) {
      const program = new Command('ludus');
      const module = (await import(new URL(file, dir).href)) as { register: (program: Command) => void };
      module.register(program);
      expect(program.commands.map((command) => command.name()), file).toEqual([file.replace(/\.ts$/, '')]);
    }
  });
});
