import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Option, type Command } from 'commander';
import { packageRoot } from '../../native/io/package-root.ts';
import { fail } from '../../core/errors.ts';
import { PRESETS, REAL_SHAPE_PRESETS } from '../../native/model/presets.ts';
import { benchRealSize, formatRealSize, REAL_SIZE_DEFAULTS, REAL_SIZE_PHASES } from '../../native/bench/real-size.ts';
import { writeRandomCheckpoint } from '../../native/bench/random-checkpoint.ts';
import type { EncodableDtype } from '../../native/io/safetensors.ts';
import { benchGrader, formatGraderBench } from '../../plugins/graders/bench/bench-grader.ts';
import { graderBenchLines } from '../../plugins/graders/bench/grader-lines.ts';
import { parseExtractionOrder } from '../../plugins/graders/math/extract.ts';
import { benchEngine, formatEngineBench, type EngineBenchReport } from '../../native/bench/engine-report.ts';
import { benchBpe } from '../../plugins/tokenizers/bpe-bench.ts';
import { benchRemote, formatRemoteBench } from '../bench/bench-remote.ts';
import { benchTorchBackendCommand, TORCH_BACKEND_CHECKS, type TorchBackendCheck } from '../bench/bench-torch-backend.ts';
import { defaultPython } from '../../native/torch/torch-worker.ts';
import { compareReports, formatComparison, torchPeerChange } from '../bench/bench-compare.ts';
import { benchRecord, loadNow, readBenchJson, readRecord, saveRecord } from '../bench/bench-record.ts';
import { formatProfile, summarizeProfile } from '../../native/bench/ort-profile.ts';
import { benchViewer, formatViewerBench } from '../bench/bench-viewer.ts';
import { benchGames, formatGamesBench } from '../../engine/bench/games-bench.ts';
import { benchWorldGame, formatWorldGameBench } from '../../engine/bench/world-game-bench.ts';
import { benchTournament, formatTournamentBench } from '../../lab/tournament/bench/tournament-bench.ts';
import { composePlugins } from '../../composition/compose.ts';
import { gameFor } from '../../engine/trainer/run-pieces.ts';
import { resolveModelDir } from '../../plugins/policies/default-model.ts';
import { deviceOption, forceThreadsOption, parseDevice, positiveNumberArg, threadsOption, wholeNumberArg } from '../options.ts';
import { ensureDevice } from '../../native/ort.ts';
import { CHECKED_GRAPHS, checkPlacement, type CheckedGraph } from '../../native/bench/placement-check.ts';
import { TrainConfigSchema } from '../../engine/trainer/train-config.ts';

export function register(program: Command): void {
  const bench = program.command('bench').description('benchmarks, measured side by side in one run');
  bench
    .command('engine')
    .description(
      'small presets: decode (solo vs tandem vs naive), training and memory in one process; the real-shape presets (qwen3-0.6b, qwen3-1.7b, qwen3-4b): ' +
        'a random checkpoint, then load, scoring against the PyTorch reference, solo and tandem decode at B = 1, 16, 64, two adapters stacked on the model against its solo decode, full fine-tuning and LoRA, each in a process of its own. ' +
        'PyTorch eager on the same shapes in the same run when torch is importable',
    )
    .option('--preset <name>', `model preset (${Object.keys(PRESETS).join(', ')})`, 'qwen3-4m')
    .option('--batch <n>', 'small presets: decode batch (default 64)', wholeNumberArg('batch'))
    .option('--batches <list>', `real-shape presets: decode batches (default ${REAL_SIZE_DEFAULTS.batches.join(',')})`)
    .option('--new-tokens <n>', 'tokens generated per row (small presets: 256; real-shape presets: 16 at B=1, 32 above)', wholeNumberArg('new-tokens'))
    .option('--prompt-tokens <n>', 'prompt tokens per row', wholeNumberArg('prompt-tokens'), 16)
    .addOption(threadsOption(2))
    .addOption(forceThreadsOption())
    .option('--naive-rows <n>', 'small presets: rows measured for the naive per-row prototype', wholeNumberArg('naive-rows'), 4)
    .option('--train-batch <n>', `training batch (small presets: 16; real-shape: ${REAL_SIZE_DEFAULTS.trainRows})`, wholeNumberArg('train-batch'))
    .option('--train-len <n>', 'training sequence length', wholeNumberArg('train-len'), 128)
    .option('--train-steps <n>', `timed training steps (small presets: 5; real-shape: ${REAL_SIZE_DEFAULTS.trainSteps})`, wholeNumberArg('train-steps'))
    .option('--rss-rollouts <n>', 'small presets: repeated rollouts watched for memory growth', wholeNumberArg('rss-rollouts', 0), 5)
    .option('--repeats <n>', 'timed rollouts per decode configuration, interleaved; the median is reported (small presets: 3; real-shape: 1)', wholeNumberArg('repeats'))
    .option('--long', 'small presets: also run one 2048-token co-decoded rollout at the decode batch')
    .option('--torch <mode>', 'PyTorch peer, eager PyTorch written for speed (tools/python/torch_speed_peer.py): auto (when importable), on (required), off', 'auto')
    .option('--torch-reference', 'small presets: also the PyTorch reference model (the peer of the figures before 2026-12-07: a cache grown by concatenation, every objective term)')
    .option('--peer <list>', 'decoding peers on the same weights, exported to GGUF F32: llama.cpp (node-llama-cpp, batched decoding of the same prompts)', parsePeers)
    .option('--phases <list>', `real-shape presets: only these measurements (${REAL_SIZE_PHASES.join(', ')}; default all), each PyTorch baseline with its own`)
    .option('--real-size', 'the real-size benchmark (a checkpoint on disk, each measurement in a process of its own); the default for the real-shape presets')
    .option('--seed <n>', 'seed', wholeNumberArg('seed', 0), 1)
    .addOption(deviceOption('where score, decode and train run: cpu, webgpu or cuda (docs/gpu.md). On a GPU the real-size benchmark runs at any preset, with the GPU\'s ceiling measured by a large matmul and the scores compared with the CPU\'s'))
    .option('--matmul-size <n>', 'on a GPU: side of the float32 square products its ceiling is measured with', wholeNumberArg('matmul-size', 1), 4096)
    .option('--json', 'print one JSON line')
    .option('--save <dir>', 'also keep the report as a dated record in this directory (machine, commit, load before and after), for `ludus bench compare`')
    .action(async (opts) => {
      const onProgress = (label: string) => process.stderr.write(`bench: ${label}\n`);
      const loadBefore = loadNow();
      const keep = async (report: unknown) => {
        if (opts.save) process.stderr.write(`bench: record kept in ${await saveRecord(opts.save, await benchRecord(`engine-${opts.preset}`, report, loadBefore))}\n`);
      };
      const device = parseDevice(opts.device);
      await ensureDevice(device);
      if (opts.realSize || REAL_SHAPE_PRESETS.includes(opts.preset) || device !== 'cpu') {
        const batches = opts.batches === undefined ? REAL_SIZE_DEFAULTS.batches : parseBatches(opts.batches);
        const newTokens = Object.fromEntries(batches.map((b) => [String(b), opts.newTokens ?? (b === 1 ? 16 : 32)]));
        const report = await benchRealSize({
          preset: opts.preset,
          threads: opts.threads,
          device,
          matmulSize: opts.matmulSize,
          seed: opts.seed,
          batches,
          newTokens,
          promptTokens: opts.promptTokens,
          repeats: opts.repeats ?? REAL_SIZE_DEFAULTS.repeats,
          trainRows: opts.trainBatch ?? REAL_SIZE_DEFAULTS.trainRows,
          trainCols: opts.trainLen,
          trainSteps: opts.trainSteps ?? REAL_SIZE_DEFAULTS.trainSteps,
          scoreTokens: REAL_SIZE_DEFAULTS.scoreTokens,
          // PyTorch's baselines are CPU ones: beside a GPU run only when asked for.
          torch: device !== 'cpu' && opts.torch === 'auto' ? 'off' : opts.torch,
          ...(opts.phases === undefined ? {} : { phases: parsePhases(opts.phases) }),
          ...(opts.peer === undefined ? {} : { peers: opts.peer }),
          onProgress,
        });
        await keep(report);
        process.stdout.write(opts.json ? `${JSON.stringify(report)}\n` : formatRealSize(report));
        return;
      }
      const report: EngineBenchReport = await benchEngine({
        ...opts,
        batch: opts.batch ?? 64,
        newTokens: opts.newTokens ?? 256,
        trainBatch: opts.trainBatch ?? 16,
        trainSteps: opts.trainSteps ?? 5,
        repeats: opts.repeats ?? 3,
        peers: opts.peer ?? [],
        onProgress,
      });
      await keep(report);
      process.stdout.write(opts.json ? `${JSON.stringify(report)}\n` : formatEngineBench(report));
    });
  bench
    .command('compare')
    .description('two bench reports side by side (records kept with --save, or bare --json lines): every measure both hold, new/old, and each speed that fell or cost that rose past the threshold flagged')
    .argument('<old>', 'the earlier record or report (JSON)')
    .argument('<new>', 'the later one')
    .option('--threshold <fraction>', 'a move for the worse past this is flagged', parseFraction, 0.1)
    .option('--json', 'print the comparison as one JSON line')
    .action(async (oldPath: string, newPath: string, opts: { threshold: number; json?: boolean }) => {
      const [before, after] = [await readRecord(oldPath), await readRecord(newPath)];
      const measures = compareReports(before.report, after.report, opts.threshold);
      if (measures.length === 0) fail('DATA_INVALID', `${oldPath} and ${newPath} share no numeric measure: are they reports of the same bench?`);
      const notes = [torchPeerChange(before.report, after.report)].filter((note): note is string => note !== undefined);
      process.stdout.write(
        opts.json
          ? `${JSON.stringify({ measures, regressions: measures.filter((m) => m.regression).map((m) => m.path), notes })}\n`
          : formatComparison(measures, { old: before.record, new: after.record }, opts.threshold, notes),
      );
    });
  bench
    .command('profile')
    .description("onnxruntime's profile of a session, summed by operator and by node: run any command with LUDUS_ORT_PROFILE=<path prefix> (every session it releases writes <prefix><label>_<date>.json), then read the files with this")
    .argument('<files...>', 'profile files (JSON) written by onnxruntime')
    .option('--top <n>', 'slowest nodes listed', wholeNumberArg('top', 0), 15)
    .option('--json', 'print one JSON line per file')
    .action(async (files: string[], opts: { top: number; json?: boolean }) => {
      for (const file of files) {
        const summary = summarizeProfile(await readBenchJson(file), opts.top, file);
        process.stdout.write(opts.json ? `${JSON.stringify({ file, ...summary })}\n` : formatProfile(file, summary));
      }
    });
  bench
    .command('placement')
    .description("where the decode, score and train graphs run on a device: from onnxruntime's verbose session log, the nodes its provider did not take (they run on the CPU, with a copy each way per run)")
    .addOption(deviceOption())
    .option('--preset <name>', `model preset the graphs are built for (${Object.keys(PRESETS).join(', ')})`, 'qwen3-4m')
    .option('--graphs <list>', `graphs to check (${CHECKED_GRAPHS.join(', ')})`, CHECKED_GRAPHS.join(','))
    .option('--json', 'print one JSON line')
    .action(async (opts: { device: string; preset: string; graphs: string; json?: boolean }) => {
      const device = parseDevice(opts.device);
      await ensureDevice(device);
      const graphs = opts.graphs.split(',').map((g) => g.trim()) as CheckedGraph[];
      const unknown = graphs.filter((g) => !CHECKED_GRAPHS.includes(g));
      if (unknown.length > 0) fail('INPUT_INVALID', `--graphs ${opts.graphs}: unknown ${unknown.join(', ')} (known: ${CHECKED_GRAPHS.join(', ')})`, { flag: 'graphs' });
      const report = await checkPlacement({ device, preset: opts.preset, graphs });
      process.stdout.write(
        opts.json
          ? `${JSON.stringify({ device, preset: opts.preset, graphs: report })}\n`
          : report.map((r) => `${r.graph.padEnd(7)} ${JSON.stringify(r.counts)}; not on ${device}: ${r.count} (${r.ops.map(([op, n]) => `${op} ×${n}`).join(', ') || 'none'}); copies ${r.copies}\n`).join(''),
      );
    });
  bench
    .command('checkpoint')
    .description("writes a random-weight checkpoint of a preset's shape (qwen3-0.6b, qwen3-1.7b, qwen3-4b with the real Qwen3 tokenizer), for the real-size benchmarks")
    .requiredOption('--out <dir>', 'checkpoint directory to write')
    .option('--preset <name>', `model preset (${Object.keys(PRESETS).join(', ')})`, 'qwen3-0.6b')
    .option('--dtype <dtype>', 'stored dtype: BF16 (as released), F16 or F32', 'BF16')
    .option('--shard-mb <n>', 'shard size in MB (default: one file up to 5 GB, as transformers)', positiveNumberArg('shard-mb'))
    .option('--seed <n>', 'seed', wholeNumberArg('seed', 0), 1)
    .action(async (opts: { out: string; preset: string; dtype: string; shardMb?: number; seed: number }) => {
      const dtype = opts.dtype.toUpperCase() as EncodableDtype;
      if (!['BF16', 'F16', 'F32'].includes(dtype)) fail('INPUT_INVALID', `--dtype ${opts.dtype}: expected BF16, F16 or F32`);
      const start = performance.now();
      const { tokenizer } = await writeRandomCheckpoint(opts.out, { preset: opts.preset, seed: opts.seed, dtype, shardBytes: opts.shardMb === undefined ? undefined : opts.shardMb * 1e6 });
      process.stderr.write(`wrote ${opts.out} (${opts.preset}, ${dtype}${tokenizer ? ', Qwen3 tokenizer' : ''}) in ${((performance.now() - start) / 1000).toFixed(1)} s\n`);
    });
  bench
    .command('games')
    .description('the match engine: a two-role sequential game with two policies against solo decoding at the same batch; one learning step of two policies against each alone')
    .option('--model <dir>', "model every policy starts from, or 'default' (the shipped base)", 'default')
    .option('--task <name>', 'task the prompts come from', 'arithmetic')
    .option('--matches <n>', 'matches in flight (and the solo batch)', wholeNumberArg('matches'), 64)
    .option('--turn-tokens <n>', 'tokens per turn', wholeNumberArg('turn-tokens'), 128)
    .option('--repeats <n>', 'interleaved repeats; medians are reported', wholeNumberArg('repeats'), 3)
    .addOption(threadsOption(2))
    .addOption(forceThreadsOption())
    .option('--world-game <name>', "also a world game's multi-turn self-play matches against solo decoding of the same turns ('' to skip)", 'tictactoe')
    .option('--world-model <dir>', "the world game's model, or 'default' (the shipped world base)", 'default')
    .option('--json', 'print one JSON line')
    .action(async (opts) => {
      const report = await benchGames({ ...opts, onProgress: (label: string) => process.stderr.write(`bench: ${label}\n`) });
      const world = opts.worldGame
        ? await benchWorldGame({ game: gameFor(await composePlugins(), { game: opts.worldGame, knobs: {}, grader: 'math' }), modelDir: resolveModelDir(opts.worldModel, 'world'), matches: opts.matches, repeats: opts.repeats, threads: opts.threads })
        : undefined;
      process.stdout.write(opts.json ? `${JSON.stringify({ ...report, ...(world ? { world } : {}) })}\n` : `${formatGamesBench(report)}${world ? formatWorldGameBench(world) : ''}`);
    });
  bench
    .command('remote')
    .description('rollouts through `ludus serve-model` on loopback against the in-process decoders, same rows: solo, and tandem co-written by span-and-cut with the tokens it throws away; the tokens SGLang would generate past a stop id under ignore_eos; and learner steps through `ludus serve-trainer` against the in-process learner')
    .option('--model <dir>', "model both policies start from, or 'default' (the shipped base)", 'default')
    .option('--task <name>', 'task the prompts come from', 'arithmetic')
    .option('--rows <n>', 'rows per call (decoder and server batch)', wholeNumberArg('rows'), 16)
    .option('--tokens <n>', 'tokens per row', wholeNumberArg('tokens'), 128)
    .option('--spans <list>', 'span lengths of span-and-cut measured, comma-separated', '2,4,8')
    .option('--repeats <n>', 'interleaved repeats; medians are reported', wholeNumberArg('repeats'), 3)
    .option('--train-steps <n>', 'timed learner steps (rows × tokens) in-process and through the trainer API, interleaved; medians are reported', wholeNumberArg('train-steps'), 5)
    .addOption(threadsOption(2))
    .addOption(forceThreadsOption())
    .option('--json', 'print one JSON line')
    .action(async (opts) => {
      const spans = String(opts.spans).split(',').map((v) => Number(v.trim()));
      if (spans.some((span) => !Number.isInteger(span) || span < 1)) fail('INPUT_INVALID', `--spans must list positive integers, got "${opts.spans}"`, { flag: 'spans' });
      if (!Number.isInteger(opts.trainSteps) || opts.trainSteps < 1) fail('INPUT_INVALID', `--train-steps must be a positive integer, got "${opts.trainSteps}"`, { flag: 'train-steps' });
      const report = await benchRemote({ ...opts, spans, onProgress: (label: string) => process.stderr.write(`bench: ${label}\n`) });
      process.stdout.write(opts.json ? `${JSON.stringify(report)}\n` : formatRemoteBench(report));
    });
  bench
    .command('torch-backend')
    .description("the torch backend of `ludus serve-trainer` on this machine: the same 2 tandem steps on this worker (device, strategy) and on a CPU worker, compared (within 1e-3 is the GPU check's bar); a full fine-tuning and a LoRA r=16 step at a real shape, with tokens/s and the worker's peak memory")
    .addOption(new Option('--worker-device <device>', 'where the worker computes').choices(['auto', 'cpu', 'cuda']).default('auto'))
    .addOption(new Option('--strategy <how>', 'ddp, or fsdp (sharded; needs a torch whose FSDP imports)').choices(['ddp', 'fsdp']).default('ddp'))
    .option('--python <path>', 'the interpreter with torch (LUDUS_PYTHON, else /usr/bin/python3)', defaultPython())
    .option('--checks <list>', 'equal (2 tandem steps against a CPU worker), speed (a full and a LoRA step at --preset), overlap (grpo\'s step time with rollouts on two serve-model processes at rolloutsAhead 0 and 1)', 'equal,speed')
    .option('--preset <name>', 'the shape of the speed steps (a random checkpoint)', 'qwen3-0.6b')
    .option('--rows <n>', 'rows of the speed steps', wholeNumberArg('rows'), 4)
    .option('--cols <n>', 'tokens per row of the speed steps', wholeNumberArg('cols'), 128)
    .option('--steps <n>', 'timed speed steps (after one warm-up); the median is reported', wholeNumberArg('steps'), 3)
    .addOption(threadsOption(2))
    .addOption(forceThreadsOption())
    .option('--json', 'print one JSON line')
    .action(async (opts) => {
      const checks = String(opts.checks).split(',').map((check) => check.trim());
      const unknown = checks.filter((check) => !(TORCH_BACKEND_CHECKS as readonly string[]).includes(check));
      if (unknown.length > 0 || checks.length === 0) fail('INPUT_INVALID', `--checks ${opts.checks}: unknown ${unknown.join(', ')} (known: ${TORCH_BACKEND_CHECKS.join(', ')})`, { flag: 'checks' });
      if (!PRESETS[opts.preset as keyof typeof PRESETS]) fail('INPUT_INVALID', `--preset ${opts.preset}: unknown (known: ${Object.keys(PRESETS).join(', ')})`, { flag: 'preset' });
      const report = await benchTorchBackendCommand({ ...opts, checks: checks as TorchBackendCheck[], onProgress: (label: string) => process.stderr.write(`bench: ${label}\n`) });
      process.stdout.write(opts.json ? `${JSON.stringify(report)}\n` : `${JSON.stringify(report, null, 2)}\n`);
    });
  bench
    .command('viewer')
    .description('training throughput with no viewer, then with the viewer server and N loopback WebSocket spectators (one never reads); server memory; who kept receiving')
    .option('--game <name>', 'game trained', 'tandem')
    .option('--spectators <n>', 'WebSocket spectators, the first of which never reads', wholeNumberArg('spectators', 0), 200)
    .option('--steps <n>', 'training steps per run', wholeNumberArg('steps'), 8)
    .option('--problems <n>', 'problems per step', wholeNumberArg('problems'), 4)
    .option('--group <n>', 'matches per problem', wholeNumberArg('group'), 8)
    .option('--max-new-tokens <n>', 'response length cap', wholeNumberArg('max-new-tokens'), 128)
    .option('--rounds <n>', 'runs without and with spectators, interleaved', wholeNumberArg('rounds'), 2)
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
        finalComparison: 0,
      });
      const catalog = await composePlugins();
      const report = await benchViewer({
        game: gameFor(catalog, config),
        config,
        spectators: opts.spectators,
        rounds: opts.rounds,
        threads: opts.threads,
        onProgress: (label) => process.stderr.write(`bench: ${label}\n`),
      });
      process.stdout.write(opts.json ? `${JSON.stringify(report)}\n` : formatViewerBench(report));
    });
  bench
    .command('tournament')
    .description('a round-robin of N distinct checkpoints, and one of N distinct rank-16 adapters on one base, on short solo matches (loaded as they play, every entrant one batch) against one policy playing as many matches in batches of the same width; peak RSS of each')
    .option('--entrants <n>', 'entrants in the round-robin', wholeNumberArg('entrants'), 16)
    .option('--problems <n>', 'problems each entrant plays', wholeNumberArg('problems'), 4)
    .option('--copies <n>', 'matches per problem (a batch is problems × copies rows)', wholeNumberArg('copies'), 8)
    .option('--new-tokens <n>', 'response length cap', wholeNumberArg('new-tokens'), 64)
    .option('--max-loaded <n>', 'entrants held in memory at once', wholeNumberArg('max-loaded'), 8)
    .option('--repeats <n>', 'interleaved repeats; medians are reported', wholeNumberArg('repeats'), 3)
    .option('--threads <n>', 'intra-op threads', wholeNumberArg('threads', 0), 2)
    .option('--json', 'print one JSON line')
    .action(async (opts) => {
      const report = await benchTournament({ ...opts, catalog: await composePlugins(), onProgress: (label: string) => process.stderr.write(`bench: ${label}\n`) });
      process.stdout.write(opts.json ? `${JSON.stringify(report)}\n` : formatTournamentBench(report));
    });
  bench
    .command('grader')
    .description('random and adversarial LaTeX-like lines through the math grader: time and steps per line (p50, p99, max), crashes; then the same file through `ludus grade`')
    .option('--lines <n>', 'lines generated', wholeNumberArg('lines'), 10_000)
    .option('--seed <n>', 'seed of the generated lines', wholeNumberArg('seed', 0), 0)
    .option('--extract <order>', 'extraction order (see ludus grade)', 'full')
    .option('--no-cli', 'skip the run of `ludus grade` over the generated file')
    .option('--json', 'print one JSON line')
    .action(async (opts: { lines: number; seed: number; extract: string; cli: boolean; json?: boolean }) => {
      if (!Number.isInteger(opts.lines) || opts.lines < 1) fail('INPUT_INVALID', `--lines must be a positive integer, got "${opts.lines}"`, { flag: 'lines' });
      if (!Number.isInteger(opts.seed) || opts.seed < 0) fail('INPUT_INVALID', `--seed must be an integer >= 0, got "${opts.seed}"`, { flag: 'seed' });
      const extraction = parseExtractionOrder(opts.extract);
      const lines = graderBenchLines(opts.lines, opts.seed);
      process.stderr.write(`bench: grading ${lines.length} lines in process\n`);
      const report = benchGrader(lines, extraction);
      const cli = opts.cli ? await gradeFileWithCli(lines.map(({ gold, pred }) => JSON.stringify({ gold, pred })), opts.extract) : undefined;
      process.stdout.write(opts.json ? `${JSON.stringify({ ...report, seed: opts.seed, ...(cli ? { cli } : {}) })}\n` : formatGraderBench(report, cli));
    });
  bench
    .command('tokenizer')
    .description("byte-level BPE training time on the synthetic tasks' worked solutions (the text ludus pretrain trains its tokenizer on)")
    .option('--tasks <names>', 'comma-separated generated tasks', 'arithmetic,last-letter')
    .option('--problems <n>', 'training problems of each task', wholeNumberArg('problems'), 10_000)
    .option('--merges <n>', 'merges learned', wholeNumberArg('merges'), 4096)
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

/** Writes the lines to a file and runs `ludus grade` on it in a child process, as a user would. */
async function gradeFileWithCli(lines: string[], extract: string): Promise<{ exit_code: number; output_lines: number; wall_s: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'ludus-bench-grader-'));
  try {
    const file = join(dir, 'lines.jsonl');
    await writeFile(file, `${lines.join('\n')}\n`);
    process.stderr.write(`bench: ludus grade --jsonl ${file}\n`);
    const bin = join(packageRoot(), 'bin', 'ludus.js');
    const started = performance.now();
    const { code, stdout } = await new Promise<{ code: number; stdout: string }>((resolve) => {
      execFile(process.execPath, [bin, 'grade', '--jsonl', file, '--extract', extract], { maxBuffer: 256 * 2 ** 20 }, (error, out) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout: out });
      });
    });
    return { exit_code: code, output_lines: stdout.split('\n').filter((l) => l !== '').length, wall_s: (performance.now() - started) / 1000 };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const PEERS = ['llama.cpp'];

function parsePeers(text: string): string[] {
  const peers = text.split(',').map((part) => part.trim()).filter((part) => part !== '');
  const unknown = peers.filter((name) => !PEERS.includes(name));
  if (peers.length === 0 || unknown.length > 0) fail('INPUT_INVALID', `--peer ${text}: unknown ${unknown.join(', ') || 'peer'} (known: ${PEERS.join(', ')})`, { flag: 'peer' });
  return peers;
}

function parsePhases(text: string): string[] {
  const phases = text.split(',').map((part) => part.trim()).filter((part) => part !== '');
  const unknown = phases.filter((name) => !REAL_SIZE_PHASES.includes(name));
  if (unknown.length > 0) fail('INPUT_INVALID', `--phases ${text}: unknown ${unknown.join(', ')} (known: ${REAL_SIZE_PHASES.join(', ')})`);
  return phases;
}

function parseBatches(text: string): number[] {
  const batches = text.split(',').map((part) => Number(part.trim()));
  if (batches.length === 0 || !batches.every((b) => Number.isInteger(b) && b > 0)) fail('INPUT_INVALID', `--batches ${text}: expected comma-separated positive integers`);
  return batches;
}

function parseFraction(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !(n > 0 && n < 1)) fail('INPUT_INVALID', `--threshold "${value}" is not a fraction between 0 and 1 (0.1 flags moves past 10%)`, { flag: 'threshold' });
  return n;
}
