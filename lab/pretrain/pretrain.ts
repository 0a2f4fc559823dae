import { mkdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fail } from '../../core/errors.ts';
import { loadCheckpoint, saveCheckpoint } from '../../native/io/checkpoint.ts';
import { packageRoot } from '../../native/io/package-root.ts';
import { pathExists, recoverDirectory } from '../../native/io/files.ts';
import { parseHfConfig, type ModelConfig } from '../../native/model/config.ts';
import { initWeights, PRESETS } from '../../native/model/presets.ts';
import type { Weights } from '../../native/model/weights.ts';
import { Learner } from '../../native/train/learner.ts';
import type { StepStats } from '../../native/train/learner.ts';
import { learningRate } from '../../native/train/lr-schedule.ts';
import { appendJsonl, trimJsonlAfter } from '../../engine/trainer/jsonl-log.ts';
import { loadTrainingCheckpoint, saveTrainingCheckpoint, TRAINER_STATE_FILE } from '../../engine/trainer/training-checkpoint.ts';
import { taskByName } from '../../plugins/tasks/registry.ts';
import type { Task } from '../../core/tasks/task.ts';
import { EOS_TOKEN, PAD_TOKEN, trainBpe } from '../../plugins/tokenizers/bpe-trainer.ts';
import { tokenizerFromJson, type TextTokenizer } from '../../plugins/tokenizers/hf-tokenizer.ts';
import { PretrainConfigSchema, type PretrainConfig } from './pretrain-config.ts';
import { sftBatch, tokenizeExample, type SftExample } from './sft-batch.ts';
import { isMixed, mixedExample, type SftSource } from './sft-examples.ts';
import { Rng, deriveSeed } from '../../core/rng.ts';
import { moveFormatsTask } from '../../core/world/move-formats.ts';
import { worldMovesTask, type WorldTeacher } from '../../core/world/world-moves-task.ts';
import type { WorldProtocol } from '../../core/protocols/world.ts';

export interface PretrainRun {
  /** Run directory: model/ (the result, Hugging Face layout), checkpoint/ (resumable state), metrics.jsonl. */
  out: string;
  config: PretrainConfig;
  resume?: boolean;
  threads?: number;
  /** Stop after this many steps in total (for a partial run that is resumed later). */
  stopAfter?: number;
  onStep?: (stats: StepStats & { lr: number }, total: number) => void;
  /** Hears each phase as it starts (the tokenizer, the training, the saving), for progress. */
  onPhase?: (phase: string) => void;
  /** The worlds the `world` task draws positions from, with their reference opponents, by game id (the catalog's world games; the CLI passes them). */
  worlds?: Readonly<Record<string, Pick<WorldProtocol<string>, 'world' | 'scripted'>>>;
}

interface TrainerState extends Record<string, unknown> {
  step: number;
  /** Index of the next training problem: the data cursor. */
  cursor: number;
  config: PretrainConfig;
}

export const MODEL_DIR = 'model';
export const CHECKPOINT_DIR = 'checkpoint';
export const METRICS_FILE = 'metrics.jsonl';

/**
 * Makes a base model from scratch: a byte-level BPE tokenizer trained on the task's training text, a Qwen3-style
 * model, and supervised fine-tuning on gold solutions. Checkpoints (weights, AdamW moments, step and data cursor)
 * are written atomically every `checkpointEvery` steps; `resume` continues from the last one exactly.
 */
export async function pretrain(run: PretrainRun): Promise<{ modelDir: string; steps: number }> {
  const checkpointDir = join(run.out, CHECKPOINT_DIR);
  const resuming = run.resume === true && (await recoverDirectory(checkpointDir)) && (await pathExists(join(checkpointDir, TRAINER_STATE_FILE)));
  run.onPhase?.(resuming ? 'loading the checkpoint' : `training the tokenizer on ${run.config.tokenizerProblems} problems`);
  const taskFor = (name: string, options: Record<string, unknown>) => pretrainTask(name, options, run.worlds);
  const start = resuming ? await fromCheckpoint(checkpointDir, run.config) : await fromScratch(run.config, taskFor);
  const { config } = start.state;
  const task = await taskFor(config.task, { seed: config.seed, ...config.taskOptions });
  const sources = await sftSources(config, taskFor);
  const stageTask = config.firstStage ? await taskFor(config.task, { seed: config.seed, ...config.taskOptions, ...config.firstStage.taskOptions }) : undefined;
  const tokenizer = tokenizerFromJson(start.tokenizerJson, {}, `${config.task} tokenizer`);
  const eos = tokenizer.json.added_tokens as Array<{ id: number; content: string }>;
  const eosId = eos.find((t) => t.content === EOS_TOKEN)!.id;
  const padId = eos.find((t) => t.content === PAD_TOKEN)!.id;
  const learner = await Learner.create(start.modelConfig, start.weights, {
    objective: 'sft',
    optimizer: { lr: config.schedule.lr, weightDecay: config.weightDecay, maxGradNorm: config.maxGradNorm },
    normalization: 'token-mean',
    threads: run.threads ?? 0,
    maxSeqLen: config.maxTokens,
    ...(config.microBatchRows ? { microBatchRows: config.microBatchRows } : {}),
  });
  if (start.optimizer) learner.loadOptimizerState(start.optimizer);
  await mkdir(run.out, { recursive: true });
  await trimJsonlAfter(join(run.out, METRICS_FILE), start.state.step);

  run.onPhase?.('supervised training');
  let { step, cursor } = start.state;
  const end = config.saveAt ?? config.steps;
  const last = Math.min(end, run.stopAfter ?? end);
  const save = () =>
    saveTrainingCheckpoint<TrainerState>(checkpointDir, {
      config: start.modelConfig,
      weights: learner.weights,
      optimizer: learner.optimizerState(),
      state: { step, cursor, config },
      tokenizerJson: start.tokenizerJson,
    });
  while (step < last) {
    const stage = stageTask && config.firstStage && step < config.firstStage.steps ? { task: stageTask, batch: config.firstStage.batch, toolCalls: config.firstStage.toolCalls } : undefined;
    const batch = stage?.batch ?? config.batch;
    const examples = stage
      ? (stage.toolCalls
          ? Array.from({ length: batch }, (_, i) => mixedExample([{ task: stage.task, share: 1 }], undefined, config.seed, cursor + i, 0, undefined, stage.toolCalls))
          : batchAt(stage.task, cursor, { ...config, batch })
        ).map((example) => tokenizeExample(tokenizer, example, eosId))
      : isMixed(config)
        ? Array.from({ length: batch }, (_, i) => tokenizeExample(tokenizer, mixedExample(sources, config.verification, config.seed, cursor + i, config.slipRate, config.challenge, config.toolCalls), eosId))
        : batchAt(task, cursor, config).map((example) => tokenizeExample(tokenizer, example, eosId));
    const lr = learningRate(config.schedule, step, config.steps);
    const rows = config.microBatchRows ? [...examples].sort((a, b) => a.prompt.length + a.completion.length - (b.prompt.length + b.completion.length)) : examples;
    const stats = await learner.step(sftBatch(rows, padId, config.maxTokens), { lr });
    step += 1;
    cursor += batch;
    await appendJsonl(join(run.out, METRICS_FILE), [{ step, loss: stats.loss, grad_norm: stats.gradNorm, lr, tokens: stats.tokens }]);
    run.onStep?.({ ...stats, lr }, config.steps);
    if (step % config.checkpointEvery === 0 || step === last) await save();
  }
  const modelDir = join(run.out, MODEL_DIR);
  if (step === end) {
    run.onPhase?.('saving the model');
    await saveCheckpoint(modelDir, start.modelConfig, learner.weights, {
      dtype: config.saveDtype,
      extraFiles: { 'tokenizer.json': JSON.stringify(start.tokenizerJson), 'pretrain_config.json': `${JSON.stringify(config, null, 2)}\n` },
    });
  }
  await learner.release();
  return { modelDir, steps: step };
}

/** Seeds the slips of the solution at each data position. */
const SLIP_STREAM = 7;

/** The supervised examples at data positions cursor.. : train problems with their gold (or slipped) solutions. */
export function batchAt(task: Task, cursor: number, config: Pick<PretrainConfig, 'batch' | 'slipRate' | 'seed' | 'task'>): SftExample[] {
  if (config.slipRate > 0 && !task.slipped) fail('CONFIG_INVALID', `pretrain: slipRate ${config.slipRate} needs a task with slipped solutions, and "${config.task}" has none`, { field: 'slipRate' });
  return Array.from({ length: config.batch }, (_, i) => {
    const problem = task.sample('train', cursor + i);
    const completion = config.slipRate > 0 ? task.slipped!(problem, config.slipRate, new Rng(deriveSeed(config.seed, SLIP_STREAM, cursor + i))).solution : problem.solution;
    return { prompt: problem.prompt, completion };
  });
}

type TaskFor = (name: string, options: Record<string, unknown>) => Promise<Task>;

/**
 * A task by name; `world` with `{ game, legalLine?, teacher?, teacherShare? }` is that world game's random-move
 * positions (worldMovesTask), the solution at `teacherShare` of them the move of the game's reference opponent
 * `teacher`.
 */
async function pretrainTask(name: string, options: Record<string, unknown>, worlds: NonNullable<PretrainRun['worlds']> = {}): Promise<Task> {
  if (name === 'world-formats') {
    const { seed, echo, ...rest } = options;
    if (Object.keys(rest).length > 0) fail('CONFIG_INVALID', `pretrain: the world-formats task takes only "echo", got ${Object.keys(rest).join(', ')}`, { options });
    if (echo !== undefined && !(typeof echo === 'number' && echo >= 0 && echo <= 1)) fail('CONFIG_INVALID', `pretrain: world-formats' echo must be a share in [0, 1], got ${JSON.stringify(echo)}`, { echo });
    return moveFormatsTask(typeof seed === 'number' ? seed : 0, { echo: echo as number | undefined });
  }
  if (name !== 'world') return taskByName(name, options);
  const { game, seed, legalLine, teacher, teacherShare, ...rest } = options;
  const where = `pretrain: taskOptions of the world task ${JSON.stringify(game)}`;
  if (Object.keys(rest).length > 0) fail('CONFIG_INVALID', `${where} take only "game", "legalLine", "teacher" and "teacherShare", got ${Object.keys(rest).join(', ')}`, { options });
  if (legalLine !== undefined && typeof legalLine !== 'boolean') fail('CONFIG_INVALID', `${where}: legalLine must be true or false, got ${JSON.stringify(legalLine)}`, { legalLine });
  const entry = typeof game === 'string' ? worlds[game] : undefined;
  if (!entry) fail('CONFIG_INVALID', `pretrain: taskOptions.game must name a world game (known: ${Object.keys(worlds).join(', ') || 'none'}), got ${JSON.stringify(game)}`, { game });
  const { world, scripted } = entry!;
  if ((teacher === undefined) !== (teacherShare === undefined)) fail('CONFIG_INVALID', `${where}: "teacher" and "teacherShare" go together`, { teacher, teacherShare });
  let taught: WorldTeacher | undefined;
  if (teacher !== undefined) {
    const player = typeof teacher === 'string' ? scripted?.[teacher] : undefined;
    if (!player) fail('CONFIG_INVALID', `${where}: teacher must name one of its reference opponents (${Object.keys(scripted ?? {}).join(', ') || 'none'}), got ${JSON.stringify(teacher)}`, { teacher });
    if (typeof teacherShare !== 'number' || !(teacherShare >= 0 && teacherShare <= 1)) fail('CONFIG_INVALID', `${where}: teacherShare must be a number in [0, 1], got ${JSON.stringify(teacherShare)}`, { teacherShare });
    taught = { player: player!, share: teacherShare as number };
  }
  return worldMovesTask(world, typeof seed === 'number' ? seed : 0, { legalLine: legalLine === true, ...(taught ? { teacher: taught } : {}) });
}

/** The main task and the tasks mixed in, with their shares of the examples. */
async function sftSources(config: PretrainConfig, taskFor: TaskFor): Promise<SftSource[]> {
  const also = await Promise.all(config.alsoTasks.map(async (a) => ({ task: await taskFor(a.task, { seed: config.seed, ...a.taskOptions }), share: a.share })));
  const main = await taskFor(config.task, { seed: config.seed, ...config.taskOptions });
  return [{ task: main, share: 1 - also.reduce((sum, a) => sum + a.share, 0) }, ...also];
}

interface Start {
  state: TrainerState;
  modelConfig: ModelConfig;
  weights: Weights;
  tokenizerJson: unknown;
  optimizer?: ReturnType<Learner['optimizerState']>;
}

async function fromScratch(config: PretrainConfig, taskFor: TaskFor): Promise<Start> {
  if (config.init !== undefined) return fromModel(config, config.init);
  const task = await taskFor(config.task, { seed: config.seed, ...config.taskOptions });
  const sources = await sftSources(config, taskFor);
  const corpus = isMixed(config)
    ? Array.from({ length: config.tokenizerProblems }, (_, i) => mixedExample(sources, config.verification, config.seed, i, 0, undefined, config.toolCalls)).map((e) => `${e.prompt}${e.completion}`)
    : task.problems('train', config.tokenizerProblems).map((p) => `${p.prompt}${p.solution}`);
  const tokenizerJson = trainBpe(corpus, { vocabSize: config.vocabSize, minPieceCount: config.tokenizerMinPieceCount, spellRareWords: config.tokenizerSpellRareWords });
  const tokenizer: TextTokenizer = tokenizerFromJson(tokenizerJson, {}, 'trained tokenizer');
  const modelConfig = parseHfConfig(
    { ...PRESETS['qwen3-4m'], ...config.model, vocab_size: tokenizer.vocabSize, eos_token_id: 0, max_position_embeddings: config.maxTokens },
    'pretrain model config',
  );
  return { state: { step: 0, cursor: 0, config }, modelConfig, weights: initWeights(modelConfig, config.seed), tokenizerJson };
}

/** A run that starts from a model directory (`init`): its tokenizer, architecture and weights, positions from `maxTokens`. */
async function fromModel(config: PretrainConfig, init: string): Promise<Start> {
  const dir = resolve(packageRoot(), init);
  const tokenizerPath = join(dir, 'tokenizer.json');
  if (!(await pathExists(tokenizerPath))) fail('CONFIG_INVALID', `pretrain init ${init}: no tokenizer.json in ${dir}`, { field: 'init', dir });
  const { config: modelConfig, weights } = await loadCheckpoint(dir);
  const tokenizerJson: unknown = JSON.parse(await readFile(tokenizerPath, 'utf8'));
  return { state: { step: 0, cursor: 0, config }, modelConfig: { ...modelConfig, maxPositionEmbeddings: config.maxTokens }, weights, tokenizerJson };
}

async function fromCheckpoint(dir: string, requested: PretrainConfig): Promise<Start> {
  const checkpoint = await loadTrainingCheckpoint<TrainerState>(dir);
  const saved = PretrainConfigSchema.parse(checkpoint.state.config);
  const trajectory = ({ saveAt: _, ...rest }: PretrainConfig) => JSON.stringify(rest);
  if (trajectory(saved) !== trajectory(requested)) {
    fail('CONFIG_INVALID', `${dir}: the checkpoint was made with a different pretrain config; resume with the same config (or start a new --out)`, { dir });
  }
  return { state: { ...checkpoint.state, config: requested }, modelConfig: checkpoint.config, weights: checkpoint.weights, tokenizerJson: checkpoint.tokenizerJson, optimizer: checkpoint.optimizer };
}
