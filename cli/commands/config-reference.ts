import type { Command } from 'commander';
import { configReference } from '../config-reference.ts';

export function register(program: Command): void {
  program
    .command('config-reference')
    .description('print the config reference (every field of the training config, policies, schedules and game knobs, with type, default and meaning) as markdown')
    .action(() => {
      process.stdout.write(configReference());
    });
}
