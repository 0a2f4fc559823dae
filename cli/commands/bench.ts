import type { Command } from 'commander';
import { benchEngine, formatEngineBench, type EngineBenchReport } from '../../native/bench/engine-report.ts';
import { benchBpe } from '../../plugins/tokenizers/bpe-bench.ts';
import { benchViewer, formatViewerBench } from '../../server/bench/bench-viewer.ts';
import { composePlugins } from '../composition/compose.ts';
import { forceThreadsOption, threadsOption } from '../options.ts';
import { TrainConfigSchema } from '../../engine/trainer/train-config.ts';

export function register(program: Command): void {
  const bench = program.command('bench').description('benchmarks, measured side by side in one run');
  bench
    .command('engine')
    .description('decode (solo vs tandem vs naive), training and memory on a small preset model; PyTorch eager baseline when torch is importable')
    .option('--preset <name>', 'model preset', 'qwen3-4m')
    .option('--batch <n>', 'decode batch', (v) => Number(v), 64)
    .option('--new-tokens <n>', 'tokens generated per row', (v) => Number(v), 256)
    .option('--prompt-tokens <n>', 'prompt tokens per row', (v) => Number(v), 16)
    .addOption(threadsOption(2))
    .addOption(forceThreadsOption())
    .option('--naive-rows <n>', 'rows measured for the naive per-row prototype', (v) => Number(v), 4)
    .option('--train-batch <n>', 'training batch', (v) => Number(v), 16)
    .option('--train-len <n>', 'training sequence length', (v) => Number(v), 128)
    .option('--train-steps <n>', 'timed training steps', (v) => Number(v), 5)
    .option('--rss-rollouts <n>', 'repeated rollouts watched for memory growth', (v) => Number(v), 5)
    .option('--repeats <n>', 'timed rollouts per decode configuration, interleaved; the median is reported', (v) => Number(v), 3)
    .option('--long', 'also run one 2048-token co-decoded rollout at the decode batch')
    .option('--torch <mode>', 'PyTorch eager baseline: auto (when importable), on (required), off', 'auto')
    .option('--seed <n>', 'seed', (v) => Number(v), 1)
    .option('--json', 'print one JSON line')
    .action(async (opts) => {
      const report: EngineBenchReport = await benchEngine({
        ...opts,
        onProgress: (label: string) => process.stderr.write(`bench: ${label}\n`),
      });
      process.stdout.write(opts.json ? `${JSON.stringify(report)}\n` : formatEngineBench(report));
    });
  bench
    .command('viewer')
    .description('training throughput with no viewer, then with the viewer server and N loopback WebSocket spectators (one never reads); server memory; who kept receiving')
    .option('--game <name>', 'game trained', 'tandem')
    .option('--spectators <n>', 'WebSocket spectators, the first of which never reads', (v) => Number(v), 200)
    .option('--steps <n>', 'training steps per run', (v) => Number(v), 8)
    .option('--problems <n>', 'problems per step', (v) => Number(v), 4)
    .option('--group <n>', 'matches per problem', (v) => Number(v), 8)
    .option('--max-new-tokens <n>', 'response length cap', (v) => Number(v), 128)
    .option('--rounds <n>', 'runs without and with spectators, interleaved', (v) => Number(v), 2)
    .addOption(threadsOption(0))
    .addOption(forceThreadsOption())
    .option('--json', 'print one JSON line')
    .action(async (opts) => {
      const config = TrainConfigSchema.parse({
        game: opts.game,
        steps: opts.steps,
        problemsPerStep: opts.problems,
        groupSize: opts.group,
        maxNewTokens: opts.maxNewTokens,
        validateEvery: 0,
      });
      const report = await benchViewer({
        game: (await composePlugins()).games.create(opts.game, config),
        config,
        spectators: opts.spectators,
        rounds: opts.rounds,
        threads: opts.threads,
        onProgress: (label) => process.stderr.write(`bench: ${label}\n`),
      });
      process.stdout.write(opts.json ? `${JSON.stringify(report)}\n` : formatViewerBench(report));
    });
  bench
    .command('tokenizer')
    .description("byte-level BPE training time on the synthetic tasks' worked solutions (the text ludus pretrain trains its tokenizer on)")
    .option('--tasks <names>', 'comma-separated generated tasks', 'arithmetic,last-letter')
    .option('--problems <n>', 'training problems of each task', (v) => Number(v), 10_000)
    .option('--merges <n>', 'merges learned', (v) => Number(v), 4096)
    .option('--json', 'print one JSON line')
    .action(async (opts: { tasks: string; problems: number; merges: number; json?: boolean }) => {
      const report = await benchBpe({ tasks: opts.tasks.split(',').map((t) => t.trim()), problems: opts.problems, merges: opts.merges });
      process.stdout.write(
        opts.json
          ? `${JSON.stringify(report)}\n`
          : `BPE training: ${report.problems} problems (${report.tasks.join(', ')}), ${report.megabytes} MB, ${report.merges} merges in ${report.seconds} s (${report.megabytesPerSecond} MB/s)\n`,
      );
    });
}
