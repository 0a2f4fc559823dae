import 'reflect-metadata';
import { readdir } from 'node:fs/promises';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { LudusError } from '../core/errors.ts';

/** Each file in cli/commands exports `register(program)`; adding a command is adding a file. */
async function registerCommands(program: Command): Promise<void> {
  const dir = new URL('./commands/', import.meta.url);
  // Sources end in .ts, the compiled package's in .js (beside their .d.ts).
  const ext = extname(fileURLToPath(import.meta.url));
  const files = (await readdir(dir)).filter((f) => f.endsWith(ext) && !f.endsWith('.d.ts')).sort();
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
