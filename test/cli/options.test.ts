import { availableParallelism } from 'node:os';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { checkThreads, forceThreadsOption, parsePort, parseThreads, threadsOption } from '../../cli/options.ts';
import { resolveModelDir } from '../../plugins/policies/default-model.ts';
import { rejection } from '../support/errors.ts';

const refusal = (run: () => unknown) => rejection(Promise.resolve().then(run));

describe('parsePort', () => {
  it('should take 0 to 65535 and refuse anything else with INPUT_INVALID naming --port', async () => {
    expect([parsePort('0'), parsePort('7373'), parsePort('65535')]).toEqual([0, 7373, 65535]);
    for (const bad of ['65536', '99999', '-1', 'abc', '80.5', '']) expect((await refusal(() => parsePort(bad))).message).toContain(`--port "${bad}" is not a port`);
  });
});

describe('parseThreads and checkThreads', () => {
  const parsed = (args: string[]) => {
    const command = new Command('x').addOption(threadsOption(0)).addOption(forceThreadsOption()).exitOverride();
    command.parse(args, { from: 'user' });
    return command;
  };

  it('should refuse a count that is not one', async () => {
    expect(parseThreads('2')).toBe(2);
    expect((await refusal(() => parseThreads('many'))).message).toContain('--threads "many" is not a thread count');
  });

  it('should refuse more threads than cores unless forced, and never a default', async () => {
    const cores = availableParallelism();
    expect(() => checkThreads(parsed(['--threads', String(cores)]))).not.toThrow();
    expect((await refusal(() => checkThreads(parsed(['--threads', String(cores + 1)])))).message).toContain(`is more than this machine's ${cores} cores`);
    expect(() => checkThreads(parsed(['--threads', String(cores + 1), '--force-threads']))).not.toThrow();
    const generous = new Command('x').addOption(threadsOption(cores + 1)).addOption(forceThreadsOption());
    generous.parse([], { from: 'user' });
    expect(() => checkThreads(generous)).not.toThrow();
  });
});

describe('resolveModelDir', () => {
  it("should blame a misspelt task, not the model, for 'default'", async () => {
    const error = await refusal(() => resolveModelDir('default', 'arithmetc'));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toContain('unknown task "arithmetc"');
  });
});
