import 'reflect-metadata';
import { readdir } from 'node:fs/promises';
import { Command } from 'commander';
import { LudusError } from '../core/errors.ts';

/** Each file in cli/commands exports `register(program)`; adding a command is adding a file. */
async function registerCommands(program: Command): Promise<void> {
  const dir = new URL('./commands/', import.meta.url);
  const files = (await readdir(dir)).filter((f) => f.endsWith('.ts')).sort();
  for (const file of files) {
    const module = (await import(new URL(file, dir).href)) as { register?: (program: Command) => void };
    if (typeof module.register !== 'function') throw new Error(`cli/commands/${file} exports no register(program)`);
    module.register(program);
  }
}

const program = new Command('ludus')
  .description('Reinforcement learning between language models, written as games')
  .showHelpAfterError();

try {
  await registerCommands(program);
  await program.parseAsync(process.argv);
} catch (error) {
  if (LudusError.is(error)) {
    process.stderr.write(`ludus: ${error.message}\n`);
    process.exitCode = 2;
  } else {
    throw error;
  }
}
