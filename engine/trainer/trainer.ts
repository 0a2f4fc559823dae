import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fail } from '../../core/errors.ts';
import type { LudusEmitter } from '../../core/events.ts';
import { saveCheckpoint } from '../../native/io/checkpoint.ts';
import { cloneWeights } from '../../native/model/weights.ts';
import { Decoder } from '../../native/runtime/decoder.ts';
import type { Policy } from '../../native/runtime/policy.ts';
import { Scorer } from '../../native/runtime/scorer.ts';
import { Learner } from '../../native/train/learner.ts';
import { learningRate } from '../../native/train/lr-schedule.ts';
import { resolveModelDir } from '../../plugins/policies/default-model.ts';
import { loadPolicy } from '../../plugins/policies/load-policy.ts';
import { loadTrainingCheckpoint, saveTrainingCheckpoint } from './training-checkpoint.ts';
import { BEST_DIR, CHECKPOINT_DIR, prepareRunDir, type ResumeMode } from './run-dir.ts';
import { taskByName } from '../../plugins/tasks/registry.ts';
import type { Problem, Task } from '../../core/tasks/task.ts';
import { EventStream } from '../match/event-stream.ts';
import { appendJsonl, trimJsonlAfter } from './jsonl-log.ts';
import { learnFromMatches } from './learn-from-matches.ts';
import { MatchBroadcast, tokenTexts } from '../match/match-events.ts';
import { trainingSeeds, validationSeeds } from '../match/match-seeds.ts';
import type { MetricsLine } from './metrics-line.ts';
import { NonFiniteGuard } from './non-finite-guard.ts';
import { arenaFor, playMatches, type Arena } from '../match/play-matches.ts';
import type { RlGame } from '../../core/game/rl-game.ts';
import { TrainConfigSchema, type TrainConfig } from './train-config.ts';
import type { TrainerState } from './trainer-state.ts';
import { transcriptLine } from './transcript-line.ts';
import { validate } from './validate.ts';
import { composePlugins } from '../../cli/composition/compose.ts';
import type { PluginCatalog } from '../../cli/composition/plugin-catalog.ts';

export interface TrainRun {
  /** Run directory: metrics.jsonl, transcripts.jsonl, validation.jsonl, checkpoint/ (resumable), best/ (by validation). */
  out: string;
  config: TrainConfig;
  /** Builds the game from the config's name and knobs (games sit above plugins, so the caller supplies them). */
  game: RlGame<string>;
  /** Where the config's plugin names (the advantage estimator) resolve; the built-in catalog when absent. */
  plugins?: PluginCatalog;
  resume?: ResumeMode;
  threads?: number;
  /** Stop after this many steps in total (a partial run, resumed later). */
  stopAfter?: number;
  events?: LudusEmitter;
  /** Awaited before every step: a paused run waits here (the engine never waits on viewers, only on this). */
  gate?: { wait(): Promise<void> };
  onStep?: (line: MetricsLine, total: number) => void;
}

export { BEST_DIR, CHECKPOINT_DIR };
export const METRICS_FILE = 'metrics.jsonl';
export const TRANSCRIPTS_FILE = 'transcripts.jsonl';
export const VALIDATION_FILE = 'validation.jsonl';

/**
 * Tandem RL's Algorithm 1, shared by every co-decoding RL game: each step samples B problems × G matches played
 * under the game's protocol (seeds from (run seed, step)), grades them, and takes one clipped policy-gradient step
 * on the trainable authors' tokens; the decoder then plays with the updated senior. Checkpoints (weights, AdamW
 * moments, step, data cursor) are atomic; `resume` continues exactly.
 */
export interface TrainResult {
  steps: number;
  best: TrainerState['best'];
}

export async function train(run: TrainRun): Promise<TrainResult> {
  const { config, game } = run;
  const estimator = (run.plugins ?? (await composePlugins())).advantageEstimators.create(config.advantage);
  const checkpointDir = join(run.out, CHECKPOINT_DIR);
  const resuming = await prepareRunDir(run.out, { resume: run.resume ?? false });
  const base = await loadPolicy(resolveModelDir(config.model, config.task), 'junior');
  const tokenizer = base.tokenizer ?? fail('CHECKPOINT_MISSING_FILE', `${config.model}: RL needs a tokenizer.json in the model directory`);
  const checkpoint = resuming ? await loadTrainingCheckpoint<TrainerState>(checkpointDir) : undefined;
  if (checkpoint) checkSameRun(checkpointDir, checkpoint.state.config, config);
  const state: TrainerState = checkpoint?.state ?? { step: 0, cursor: 0, seed: config.seed, config, nonFinite: { consecutive: 0, skipped: 0 }, best: null, eventSeq: 0 };

  const modelConfig = base.policy.config;
  const learner = await Learner.create(modelConfig, checkpoint?.weights ?? cloneWeights(base.policy.weights), {
    objective: 'policy-gradient',
    optimizer: { lr: config.schedule.lr, weightDecay: config.weightDecay, maxGradNorm: config.maxGradNorm },
    clipLow: config.clipLow,
    clipHigh: config.clipHigh,
    klBeta: game.klToJunior,
    imitationWeight: game.juniorImitation,
    temperature: config.temperature,
    normalization: config.normalization,
    threads: run.threads ?? 0,
  });
  if (checkpoint) learner.loadOptimizerState(checkpoint.optimizer);
  const senior: Policy = { name: 'senior', config: modelConfig, weights: learner.weights, tokenizerHash: base.policy.tokenizerHash };
  const authors = authorsOf(game);
  const trainable = new Set<string>(game.trainable);
  const seats = Object.fromEntries(game.roles.map((role) => [role, trainable.has(role) ? 'senior' : 'junior']));
  const decoder = await Decoder.create(
    authors.map((role) => (trainable.has(role) ? senior : base.policy)),
    { batch: config.problemsPerStep * config.groupSize, maxLen: modelConfig.maxPositionEmbeddings, threads: run.threads },
  );
  const juniorScorer = game.klToJunior > 0 ? await Scorer.create(base.policy, { threads: run.threads }) : undefined;
  const task = await taskByName(config.task);
  const arena: Arena<string> = arenaFor(game, decoder, tokenizer, modelConfig.eosTokenIds, { temperature: config.temperature, topP: config.topP, maxNewTokens: config.maxNewTokens });
  const guard = new NonFiniteGuard(config.maxConsecutiveNonFinite, state.nonFinite.consecutive, state.nonFinite.skipped);
  const events = new EventStream(run.events, state.eventSeq);
  const broadcast = new MatchBroadcast(events, game.id, seats, authors, tokenTexts(tokenizer, arena.stopTokens));
  const files = { metrics: join(run.out, METRICS_FILE), transcripts: join(run.out, TRANSCRIPTS_FILE), validation: join(run.out, VALIDATION_FILE) };
  await mkdir(run.out, { recursive: true });
  for (const file of Object.values(files)) await trimJsonlAfter(file, state.step);

  const save = () =>
    saveTrainingCheckpoint<TrainerState>(checkpointDir, {
      config: modelConfig,
      weights: learner.weights,
      optimizer: learner.optimizerState(),
      state: { ...state, nonFinite: { consecutive: guard.consecutive, skipped: guard.skipped }, eventSeq: events.nextSeq },
      tokenizerJson: tokenizer.json,
    });
  const last = Math.min(config.steps, run.stopAfter ?? config.steps);
  try {
    while (state.step < last) {
      await run.gate?.wait();
      const started = performance.now();
      const problems = stepProblems(task, config, state.cursor);
      const seeds = trainingSeeds(config.seed, state.step);
      const matches = await playMatches(arena, problems, config.groupSize, seeds, `step-${state.step}`, broadcast);
      const lr = learningRate(config.schedule, state.step, config.steps);
      const learned = await learnFromMatches(
        { game, learner, guard, estimator, groupSize: config.groupSize, temperature: config.temperature, padToken: arena.stopTokens[0] ?? 0, juniorScorer },
        matches,
        lr,
      );
      if (learned.stats) for (const [index, role] of authors.entries()) if (trainable.has(role)) await decoder.updatePolicy(index, senior);
      const step = state.step + 1;
      const line: MetricsLine = {
        step,
        reward_mean: learned.rewardMean,
        answer_present: matches.filter((m) => m.verdict.answer_present).length / matches.length,
        senior_share: authors.length > 1 ? learned.seniorShare : null,
        loss: learned.stats?.loss ?? null,
        grad_norm: learned.stats?.gradNorm ?? null,
        clip_frac: learned.stats?.clipFraction ?? null,
        kl_to_junior: learned.klToJunior,
        response_len: matches.reduce((sum, m) => sum + m.trajectory.responseIds.length, 0) / matches.length,
        zero_variance_groups: learned.zeroVarianceGroups,
        lr,
        skipped_nonfinite: learned.stats ? 0 : 1,
        seconds: (performance.now() - started) / 1000,
      };
      await appendJsonl(files.metrics, [line]);
      await appendJsonl(files.transcripts, matches.map((match) => transcriptLine(step, match, seeds, config)));
      for (const match of matches) broadcast.finish(match, game.trainable[0]);
      events.publish({
        type: 'train-step',
        step,
        policy: 'senior',
        role: game.trainable[0],
        loss: line.loss ?? Number.NaN,
        zeroVarianceGroups: learned.zeroVarianceGroups,
        metrics: numericFields(line),
      });
      state.step = step;
      state.cursor += config.problemsPerStep;
      if (config.validateEvery > 0 && step % config.validateEvery === 0) await validateAndKeepBest(step);
      if (step % config.checkpointEvery === 0 || step === last) await save();
      run.onStep?.(line, config.steps);
    }
  } finally {
    await decoder.release();
    await juniorScorer?.release();
    await learner.release();
  }
  return { steps: state.step, best: state.best };

  async function validateAndKeepBest(step: number): Promise<void> {
    const result = await validate(arena, task, config.validationProblems, validationSeeds(config.seed, step));
    await appendJsonl(files.validation, [{ step, accuracy: result.accuracy, answer_present: result.answerPresent, problems: result.problems, protocol: arena.game.protocol.name }]);
    if (state.best !== null && result.accuracy <= state.best.accuracy) return;
    state.best = { step, accuracy: result.accuracy };
    await saveCheckpoint(join(run.out, BEST_DIR), modelConfig, learner.weights, { extraFiles: { 'tokenizer.json': JSON.stringify(tokenizer.json) } });
  }
}

export function authorsOf(game: RlGame<string>): readonly string[] {
  if (game.protocol.family !== 'co-decoding') return fail('CONFIG_INVALID', `game "${game.id}": the RL loop plays co-decoding protocols only`);
  const authors = game.protocol.authors;
  const trainable = authors.filter((role) => (game.trainable as readonly string[]).includes(role));
  if (trainable.length !== 1) fail('CONFIG_INVALID', `game "${game.id}": the RL loop trains exactly one author, got [${trainable.join(', ')}]`);
  return authors;
}

/** A resumed run must be the same run; only its length may change. */
function checkSameRun(dir: string, saved: TrainConfig, requested: TrainConfig): void {
  const { steps: _savedSteps, ...savedRest } = TrainConfigSchema.parse(saved);
  const { steps: _requestedSteps, ...requestedRest } = requested;
  if (JSON.stringify(savedRest) !== JSON.stringify(requestedRest)) {
    fail('CONFIG_INVALID', `${dir}: the checkpoint was made with a different training config; resume with the same config (or start a new --out)`, { dir });
  }
}

export function numericFields(line: MetricsLine): Record<string, number> {
  return Object.fromEntries(Object.entries(line).filter((entry): entry is [string, number] => typeof entry[1] === 'number'));
}

/**
 * The problems of the step that starts at data position `cursor`: problemsPerStep train problems, the positions
 * cycling through a finite training set when one is set.
 */
export function stepProblems(task: Task, config: Pick<TrainConfig, 'problemsPerStep' | 'trainProblems'>, cursor: number): Problem[] {
  const index = (position: number) => (config.trainProblems === undefined ? position : position % config.trainProblems);
  return Array.from({ length: config.problemsPerStep }, (_, j) => task.sample('train', index(cursor + j)));
}
