import 'reflect-metadata';
import { readdir } from 'node:fs/promises';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError } from 'commander';
import { LudusError } from '../core/errors.ts';
import { checkThreads } from './options.ts';
import { LUDUS_VERSION } from '../native/io/version.ts';

/**
 * Each file in cli/commands exports `register(program)`; adding a command is adding a file. When the command line
 * names one of them (`ludus train …`), only that file is loaded, so a command starts without loading every other
 * command's modules; `ludus --help` and anything unknown load them all.
 */
async function registerCommands(program: Command, requested: string | undefined): Promise<void> {
  const dir = new URL('./commands/', import.meta.url);
  // Sources end in .ts, the compiled package's in .js (beside their .d.ts).
  const ext = extname(fileURLToPath(import.meta.url));
  const all = (await readdir(dir)).filter((f) => f.endsWith(ext) && !f.endsWith('.d.ts')).sort();
  const named = all.find((file) => file === `${requested}${ext}`);
  for (const file of named ? [named] : all) {
    const module = (await import(new URL(file, dir).href)) as { register?: (program: Command) => void };
    if (typeof module.register !== 'function') throw new Error(`cli/commands/${file} exports no register(program)`);
    module.register(program);
  }
}

/** A usage error prints one line and where to read the usage, not the whole help; commander exits through a throw. */
function explainUsageErrors(command: Command, path: string): void {
  command.exitOverride().showHelpAfterError(`(see '${path} --help' for usage)`);
  for (const sub of command.commands) explainUsageErrors(sub, `${path} ${sub.name()}`);
}

const program = new Command('ludus')
  .description('Reinforcement learning between language models, written as games')
  .version(LUDUS_VERSION, '-V, --version', 'print the version')
  .hook('preAction', (_program, action) => checkThreads(action));

try {
  await registerCommands(program, process.argv[2]);
  explainUsageErrors(program, 'ludus');
  await program.parseAsync(process.argv);
} catch (error) {
  if (LudusError.is(error)) {
    process.stderr.write(`ludus: ${error.message}\n`);
    process.exitCode = 2;
  } else if (error instanceof CommanderError) {
    // Commander has printed the error (or the help or version asked for); usage errors exit 2 as documented.
    process.exitCode = error.exitCode === 0 ? 0 : 2;
  } else {
    throw error;
  }
}
