import 'reflect-metadata';
import { Command } from 'commander';
import { LudusError } from '../core/errors.ts';
import { registerScore } from './commands/score.ts';
import { registerBench } from './commands/bench.ts';

const program = new Command('ludus')
  .description('Reinforcement learning between language models, written as games')
  .showHelpAfterError();

registerScore(program);
registerBench(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (LudusError.is(error)) {
    process.stderr.write(`ludus: ${error.message}\n`);
    process.exitCode = 2;
  } else {
    throw error;
  }
}
