import type { Device } from '../../native/ort.ts';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { AdvantageEstimator } from '../../core/advantages/estimator.ts';
import { entryOf, fail } from '../../core/errors.ts';
import { jsonDifferences } from '../../core/json-differences.ts';
import type { LudusEmitter } from '../../core/events.ts';
import type { AnyGame } from '../../core/catalog.ts';
import type { Game } from '../../core/game/define-game.ts';
import { writtenHow } from '../../core/protocols/protocol.ts';
import { judgeMetrics } from '../../core/game/judge-agreement.ts';
import type { Problem, Task } from '../../core/tasks/task.ts';
import { learningRate } from '../../native/train/lr-schedule.ts';
import type { PromptRule } from '../../plugins/tokenizers/prompt-text.ts';
import { withValidationSplit, type ValidationSource } from '../../plugins/tasks/held-out-validation.ts';
import { taskByName } from '../../plugins/tasks/registry.ts';
import { arenaFor } from '../match/arena.ts';
import { DecoderPool } from '../match/decoder-pool.ts';
import { EventStream } from '../match/event-stream.ts';
import { MatchBroadcast, tokenTexts } from '../match/match-events.ts';
import { finalSeeds, trainingSeeds, validationSeeds } from '../match/match-seeds.ts';
import { playMatches } from '../match/play-matches.ts';
import type { PlayedMatch } from '../match/played-match.ts';
import { graderVerdict } from '../match/verdicts.ts';
import { PolicyPool } from '../policies/policy-pool.ts';
import { openRuntime } from '../remote/open-runtime.ts';
import type { KeptWeightWriters } from '../remote/served-policies.ts';
import { EndpointClient, type EndpointUsage } from '../remote/endpoint-client.ts';
import { EndpointRuntime } from '../remote/endpoint-runtime.ts';
import type { MatchRuntime } from '../match/runtime.ts';
import { appendJsonl, trimJsonlAfter } from './jsonl-log.ts';
import { toolMetrics } from './tool-metrics.ts';
import { compareWithStart, type FinalComparison } from './final-comparison.ts';
import { runSummaryOf, summaryScalars, writeRunSummary } from './run-summary-file.ts';
import { entropyCoefOf, exactKlReference, learnPolicy, type PolicyLearner, type PolicyLearning } from './learn-policy.ts';
import { openPolicyLearner, roleEstimators } from './policy-learner.ts';
import { chooseRunBudget, RUN_BUDGET_BYTES } from '../../native/model/memory.ts';
import { trainingStateBytes } from '../../native/train/learner.ts';
import type { ModelConfig } from '../../native/model/config.ts';
import { ReferenceScorers } from './reference-scorers.ts';
import { withDirectoryLock } from '../../native/io/dir-lock.ts';
import { TensorBoardLog } from '../../native/io/tensorboard.ts';
import { MlflowRunLog, mlflowTarget } from './mlflow-run-log.ts';
import { type EndpointMetrics, flatMetrics, validationMetrics, policyMetrics, type MetricsLine, type RoleMetrics } from './metrics-line.ts';
import { planPolicies, type LearnerSettings } from './policy-plan.ts';
import { roleRollouts } from './role-rollouts.ts';
import { TrainConfigSchema, type TrainConfig } from './train-config.ts';
import { checkRolloutsAhead, checkRowAges, RolloutsAhead } from './rollouts-ahead.ts';
import { loadRunCheckpoint, policyDir, saveBestPolicy, saveRunCheckpoint, type PolicyToSave, type SavedElsewhere } from './run-checkpoint.ts';
import { BEST_DIR, bestPolicyDir, CHECKPOINT_DIR, checkpointPolicyDir, prepareRunDir, RUN_FILE, type ResumeMode } from './run-dir.ts';
import { TOKENIZER_FILE } from './training-checkpoint.ts';
import type { TrainerState } from './trainer-state.ts';
import { FORFEIT_START_LABEL } from '../../core/world/forfeit-credit.ts';
import { transcriptLine, type MatchAdvantage } from './transcript-line.ts';
import { validate } from './validate.ts';
import { BASE_OPPONENT, baseCopyOf, collapseAlarms, fixedOpponentsOf, meanScore, playFixedOpponents } from './fixed-opponents.ts';
import { drawOpponent, poolLearner, poolSeats, recordPoolResults, reopenPool, startPool, takeSnapshot } from './opponent-pool.ts';

export interface TrainRun {
  /** Run directory: run.json, metrics.jsonl, transcripts.jsonl, validation.jsonl, checkpoint/ (resumable), best/ (by validation). */
  out: string;
  config: TrainConfig;
  /** The game, built from the catalog by the caller (the engine imports no game). */
  game: AnyGame;
  /** The run's base advantage estimator (the config's `advantage`, resolved from the catalog); the game adapts it per role. */
  advantage: AdvantageEstimator;
  /** Continue from `out`'s checkpoint (true), start a new run into an empty `out` (false), or either ('if-checkpoint'). */
  resume?: ResumeMode;
  threads?: number;
  /** Where decoding, reference scoring and learning run (docs/gpu.md); cpu when absent. */
  device?: Device;
  /** Stop after this many steps in total (a partial run, resumed later). */
  stopAfter?: number;
  events?: LudusEmitter;
  /** Awaited before every step: a paused run waits here (the engine never waits on viewers, only on this). */
  gate?: { wait(): Promise<void> };
  /** Aborted (Ctrl-C, SIGTERM): the run stops at the next step boundary, checkpointed there, and returns `stopped`. */
  stop?: AbortSignal;
  /** Hears every finished step; `checkpointed` says whether the checkpoint now holds it. */
  onStep?: (line: MetricsLine, total: number, checkpointed: boolean) => void;
  /** Adapters over one base decode in one stacked decoder (default true); false: one decoder each (for comparison). */
  stackAdapters?: boolean;
}

export interface TrainResult {
  steps: number;
  /** The step the checkpoint holds (null: none was written yet, so the run can only start over). */
  checkpointed: number | null;
  /** The run was stopped (`stop` aborted) before its last step; it continues with `resume`. */
  stopped?: true;
  best: TrainerState['best'];
  /** The trained policies against their starting point on held-out problems, once the run has taken all its steps. */
  comparison?: FinalComparison;
}

export { BEST_DIR, CHECKPOINT_DIR, RUN_FILE, bestPolicyDir, checkpointPolicyDir };
export const METRICS_FILE = 'metrics.jsonl';
export const TRANSCRIPTS_FILE = 'transcripts.jsonl';
export const VALIDATION_FILE = 'validation.jsonl';

/** What a run directory's run.json says: enough for `ludus serve` to replay it and for a reader to know what ran. */
export interface RunRecord {
  readonly game: string;
  readonly roles: readonly string[];
  /** Each policy: where it starts (`init`), or the endpoint it plays from (its URL, model and API, never its token). */
  readonly policies: readonly { readonly name: string; readonly init?: string; readonly endpoint?: { readonly url: string; readonly model: string; readonly api: string }; readonly trainable: boolean }[];
  readonly config: TrainConfig;
  /** How every prompt of the run was put to the policies (absent in runs recorded before it existed). */
  readonly prompt_rule?: PromptRule;
  /** Where the validation problems that select best/ came from; null when the run never validates. */
  readonly validation?: ValidationSource | null;
}

/**
 * The RL loop of every game (tandem RL's Algorithm 1 generalised to a pool of policies): at each step the game's
 * rotation seats the policies, B problems × G matches are played under the game's protocol (seeds from (run seed,
 * step)) and scored by its reward rule, and every policy the rotation trains takes one clipped policy-gradient step
 * on the tokens of the trainable roles it sat in, with its own learner, optimizer and schedule. Checkpoints hold every
 * trainable policy's weights and AdamW moments, the estimators' state, the step and the data cursor; `resume`
 * continues exactly.
 */
export function train(run: TrainRun): Promise<TrainResult> {
  return withDirectoryLock(run.out, 'training run', () => trainUnlocked(run));
}

async function trainUnlocked(run: TrainRun): Promise<TrainResult> {
  const { config, game } = run;
  const tracked = config.tracking?.mlflow && mlflowTarget(config.tracking.mlflow, { game: game.id, out: run.out });
  const planned = planPolicies(game, config);
  checkRolloutsAhead(config);
  const { task, source: validationSource } = tasksOfRun(await taskByName(config.task), config);
  const checkpointDir = join(run.out, CHECKPOINT_DIR);
  const trainable = planned.filter((p) => p.learner).map((p) => p.spec.name);
  const resuming = await prepareRunDir(run.out, { resume: run.resume ?? false, best: trainable });
  const checkpoint = resuming ? await loadRunCheckpoint<TrainerState>(checkpointDir) : undefined;
  if (checkpoint) checkSameRun(checkpointDir, checkpoint.state.config, config);
  const state: TrainerState = checkpoint?.state ?? { step: 0, cursor: 0, seed: config.seed, config, nonFinite: {}, best: null, eventSeq: 0, estimators: {} };

  const pool = await PolicyPool.load(
    planned.filter((p) => !p.spec.endpoint).map((p) => p.spec),
    {
      task: config.task,
      ...(checkpoint
        ? {
            weights: new Map(Object.entries(checkpoint.policies).map(([name, saved]) => [name, saved.weights])),
            versions: new Map(Object.entries(checkpoint.policies).map(([name, saved]) => [name, saved.optimizer.step])),
          }
        : {}),
    },
  );
  const poolOf = config.opponentPool && poolLearner(game, config);
  if (poolOf) {
    if (state.pool) await reopenPool(pool, poolOf, state.pool, run.out);
    else state.pool = startPool(pool, poolOf);
  }
  const fixedOpponents = config.evalEvery > 0 ? fixedOpponentsOf(game, config.evalOpponents) : [];
  if (fixedOpponents.includes(BASE_OPPONENT)) for (const name of trainable) pool.addFrozen(baseCopyOf(name), name, pool.initial(name).weights);
  // Servers are checked before anything else is built, so an unreachable one fails the run before it starts.
  const endpoints = new Map(planned.flatMap(({ spec }) => (spec.endpoint ? [[spec.name, new EndpointClient(spec.name, spec.endpoint)] as const] : [])));
  const local = game.policies.filter((name) => !endpoints.has(name));
  const first = pool.policy(local[0]);
  const stopTokens = [...new Set(local.flatMap((name) => pool.policy(name).config.eosTokenIds))];
  /** A runtime with the endpoint policies routed to their endpoints. */
  const withEndpoints = (inner: MatchRuntime): MatchRuntime => (endpoints.size > 0 ? new EndpointRuntime(inner, endpoints, pool.tokenizer) : inner);
  const localLearners = config.trainerServer ? [] : planned.filter((p) => p.learner).map((p) => pool.policy(p.spec.name).config);
  state.runBudgetBytes = checkpoint ? recordedRunBudget(checkpointDir, checkpoint.state.runBudgetBytes) : (config.runBudgetBytes ?? runBudgetOf(localLearners));
  // A decoder baking a large frozen model leaves the local learners' runs their budgets (decoderBinding).
  const reservedBytes = localLearners.length * state.runBudgetBytes;
  // With remote rollouts and a trainer server, the trained weights stay on the server: it writes them for the rollout
  // servers and into checkpoints, on storage both sides see (KeptWeights).
  const keepsWeights = config.trainerServer !== undefined && config.rolloutServers !== undefined;
  const kept: KeptWeightWriters = new Map();
  const runtime = withEndpoints(await openRuntime(pool, config.rolloutServers, { rows: config.problemsPerStep * config.groupSize, maxLen: first.config.maxPositionEmbeddings, out: run.out, threads: run.threads, device: run.device, stale: checkpoint ? trainable : [], stackAdapters: run.stackAdapters, reservedBytes, kept, keepOlder: config.rolloutsAhead }));
  const learners = new Map<string, PolicyLearner>();
  const settings = new Map<string, LearnerSettings>();
  for (const { spec, learner } of planned) {
    if (!learner) continue;
    const saved = checkpoint?.policies[spec.name];
    if (checkpoint && !saved) fail('CHECKPOINT_MISSING_FILE', `${checkpointDir}: holds no policy "${spec.name}"`, { policy: spec.name });
    const klReference = exactKlReference(game, spec.name);
    learners.set(
      spec.name,
      await openPolicyLearner(pool.policy(spec.name), learner, {
        ...(klReference ? { klReference: klReference === 'initial' ? pool.initial(spec.name) : pool.policy(klReference) } : {}),
        temperature: config.temperature,
        threads: run.threads,
        device: run.device,
        microBatchRows: config.microBatchRows,
        runBudgetBytes: state.runBudgetBytes,
        entropyCoef: entropyCoefOf(game, spec.name),
        maxConsecutiveNonFinite: config.maxConsecutiveNonFinite,
        ...(saved ? { optimizer: saved.optimizer } : {}),
        ...(state.nonFinite[spec.name] ? { nonFinite: state.nonFinite[spec.name] } : {}),
      }, config.trainerServer && { server: config.trainerServer, baseModel: spec.init === 'default' ? spec.init : resolve(pool.dir(spec.name)), task: config.task, adapterSeed: spec.adapter?.seed, ...(keepsWeights ? { keep: saved ? { checkpoint: policyDir(resolve(checkpointDir), spec.name) } : {} } : {}) }),
    );
    settings.set(spec.name, learner);
    const keeper = learners.get(spec.name)?.learner.kept;
    if (keeper) kept.set(spec.name, (dir: string) => keeper.writeForSamplers(dir));
  }

  /** Bytes on a remote learner's link since the last time asked (undefined for a learner in-process). */
  const linkBytesSeen = new Map<string, number>([...learners].flatMap(([name, { learner }]) => (learner.linkBytes === undefined ? [] : [[name, learner.linkBytes]])));
  const linkBytesSince = (name: string): number | undefined => {
    const total = learners.get(name)?.learner.linkBytes;
    if (total === undefined) return undefined;
    const since = total - (linkBytesSeen.get(name) ?? 0);
    linkBytesSeen.set(name, total);
    return since;
  };

  /** A policy whose weights this process scores a KL reference with: not one whose weights a trainer server keeps. */
  const referenceHere = (name: string) => {
    if (learners.get(name)?.learner.kept) {
      fail('CONFIG_INVALID', `policy "${name}" is a KL reference, but its trained weights stay on the trainer server (remote rollouts with trainerServer), so this process cannot score with them; train it in-process, or use a KL toward "initial"`, { policy: name, field: 'trainerServer' });
    }
    return pool.policy(name);
  };

  const arena = arenaFor(game, runtime, pool.tokenizer, stopTokens, { temperature: config.temperature, topP: config.topP, maxNewTokens: config.maxNewTokens }, { chatTemplate: config.chatTemplate });
  const events = new EventStream(run.events, state.eventSeq);
  const broadcast = new MatchBroadcast(events, game.id, tokenTexts(pool.tokenizer, stopTokens));
  const scorers = new ReferenceScorers(run.threads, config.microBatchRows, run.device);
  const estimatorOf = roleEstimators(game, run.advantage);

  const files = { metrics: join(run.out, METRICS_FILE), transcripts: join(run.out, TRANSCRIPTS_FILE), validation: join(run.out, VALIDATION_FILE) };
  await mkdir(run.out, { recursive: true });
  if (!resuming) await writeRunRecord(run.out, { game: game.id, roles: game.roles, policies: planned.map(({ spec: { name, init, trainable, endpoint } }) => ({ name, ...(endpoint ? { endpoint: { url: endpoint.url, model: endpoint.model, api: endpoint.api } } : { init }), trainable })), config, prompt_rule: arena.promptRule, validation: validationSource }, pool.tokenizer.json);
  for (const file of Object.values(files)) await trimJsonlAfter(file, state.step);
  const board = await TensorBoardLog.open(run.out, { startOver: !resuming, step: state.step });
  const tracking = tracked ? MlflowRunLog.start(tracked, { out: run.out, game: game.id, config, resuming }) : undefined;
  /** A step's numbers to TensorBoard and, where the run is tracked, to MLflow, under the same names. */
  const scalars = async (step: number, values: Readonly<Record<string, number>>) => {
    await board.scalars(step, values);
    tracking?.metrics(step, values);
  };

  const save = async () => {
    const policies: Record<string, PolicyToSave | SavedElsewhere> = {};
    for (const { name, learner } of learners.values()) {
      const keeper = learner.kept;
      policies[name] = keeper
        ? { writeTo: (target) => keeper.writeState(resolve(target)) }
        : { config: pool.policy(name).config, weights: learner.weights, optimizer: await learner.optimizerState(), baseModel: resolve(pool.dir(name)) };
    }
    await saveRunCheckpoint<TrainerState>(checkpointDir, {
      policies,
      state: { ...state, nonFinite: Object.fromEntries([...learners.values()].map(({ name, guard }) => [name, { consecutive: guard.consecutive, skipped: guard.skipped }])), eventSeq: events.nextSeq },
      tokenizerJson: pool.tokenizer.json,
    });
  };
  const last = Math.min(config.steps, run.stopAfter ?? config.steps);
  const ahead = new RolloutsAhead(
    config.rolloutsAhead,
    (step, cursor) => {
      const rotation = poolOf ? poolSeats(game, poolOf, drawOpponent(state.pool!, config.opponentPool!, poolOf, config.seed, step), step) : game.rotation.at(step);
      const seeds = trainingSeeds(config.seed, step);
      const matches = playMatches(arena, { problems: stepProblems(task, config, cursor), copies: config.groupSize, seats: rotation.seats, seeds, label: `step-${step}`, sharedTurns: game.sharedTurns(rotation), broadcast });
      return { rotation, seeds, matches };
    },
    (step) => (step + 1) % config.checkpointEvery === 0 || step + 1 === last,
  );
  let comparison: FinalComparison | undefined;
  let checkpointed = checkpoint ? state.step : null;
  const stopped = () => run.stop?.aborted === true;
  let failed = false;
  try {
    while (state.step < last && !stopped()) {
      await run.gate?.wait();
      if (stopped()) break;
      const started = performance.now();
      // With rolloutsAhead, what the endpoints were asked while this step ran (rollouts of later steps among it).
      const usedBefore = new Map([...endpoints].map(([name, client]) => [name, client.usage]));
      const { rotation, seeds, matches: sampling } = ahead.take(state.step, state.cursor);
      const matches = await sampling;
      // The next steps' rollouts sample while this one learns (rolloutsAhead; none at 0).
      ahead.fill(state.step, state.cursor, config.problemsPerStep, last);
      const learned = new Map<string, PolicyLearning>();
      const rates = new Map<string, number>();
      for (const name of rotation.trains) {
        const policy = learners.get(name) ?? fail('POLICY_INVALID', `the rotation trains "${name}" at step ${state.step}, which is not a trainable policy of this run`, { policy: name });
        checkRowAges(matches, rotation.seats, name, pool.version(name), config.rolloutsAhead);
        const lr = learningRate(entryOf(settings, name, 'the learning settings of policy').schedule, state.step, config.steps);
        rates.set(name, lr);
        const learning = await learnPolicy(
          {
            game,
            seats: rotation.seats,
            groupSize: config.groupSize,
            step: state.step,
            totalSteps: config.steps,
            padToken: stopTokens[0] ?? 0,
            reference: (policyName, toward) => (toward === 'initial' ? pool.initial(policyName) : referenceHere(rotation.seats[toward])),
            score: (policy, trajectories) => scorers.score(policy, pool.version(policy.name), trajectories, config.temperature),
            estimator: estimatorOf,
            estimatorStates: state.estimators,
          },
          policy,
          matches,
          lr,
        );
        learned.set(name, learning);
        if (learning.stats) pool.bump(name);
      }
      const step = state.step + 1;
      const asked = endpointMetrics(endpoints, usedBefore);
      const evaluated = config.evalEvery > 0 && step % config.evalEvery === 0 ? await playFixedOpponents(arena, game, task, trainable, fixedOpponents, config.evalMatches, config.seed) : undefined;
      const alarms = evaluated ? collapseAlarms(evaluated, (state.evalBest ??= {}), step, config.collapseDrop) : [];
      const line: MetricsLine = {
        step,
        seconds: (performance.now() - started) / 1000,
        tokens: matches.reduce((sum, match) => sum + match.turns.reduce((n, turn) => n + turn.tokens.length, 0), 0),
        seats: rotation.seats,
        trains: rotation.trains,
        roles: roleMetrics(game, matches, learned),
        policies: Object.fromEntries([...learned].map(([name, learning]) => [name, policyMetrics(learning, entryOf(rates, name, 'the learning rate of policy'), linkBytesSince(name))])),
        ...(Object.keys(asked).length > 0 ? { endpoints: asked } : {}),
        ...(evaluated ? { eval: evaluated } : {}),
        ...(alarms.length > 0 ? { alarms } : {}),
      };
      await appendJsonl(files.metrics, [line]);
      await scalars(step, flatMetrics(line));
      const advantages = advantagesByMatch(matches, learned, rotation.seats);
      await appendJsonl(files.transcripts, matches.map((match, i) => transcriptLine(step, match, seeds, config, advantages[i])));
      if (events.live) advantages.forEach((byRole, i) => Object.entries(byRole).forEach(([role, a]) => events.publish({ type: 'advantage', matchId: matches[i].matchId, role, ...a })));
      events.publish({ type: 'train-step', step, trains: rotation.trains, metrics: flatMetrics(line) });
      if (poolOf) {
        recordPoolResults(state.pool!, matches, rotation.seats, poolOf);
        await takeSnapshot(pool, poolOf, state.pool!, config.opponentPool!, step, run.out);
      }
      state.step = step;
      state.cursor += config.problemsPerStep;
      if (config.validateEvery > 0 && step % config.validateEvery === 0) await validateAndKeepBest(step);
      // A run that does not validate keeps best/ by its fixed opponents: the mean score (wins and half the draws) over them.
      if (evaluated && config.validateEvery === 0) await keepBest(step, meanScore(evaluated), 'eval');
      const saving = step % config.checkpointEvery === 0 || step === last || stopped();
      if (saving) {
        await save();
        checkpointed = step;
      }
      run.onStep?.(line, config.steps, saving);
    }
    // Stopped between steps (the signal came after a step's own check): the steps since the checkpoint are saved too.
    if (stopped() && state.step > (checkpointed ?? 0)) {
      await save();
      checkpointed = state.step;
    }
    if (state.step === config.steps && config.finalComparison > 0 && !stopped()) {
      // Both sides in-process, so they differ only in weights (rollout servers sample with their own kernels).
      const decoding = { rows: config.problemsPerStep * config.groupSize, maxLen: first.config.maxPositionEmbeddings, threads: run.threads, device: run.device, reservedBytes };
      // Weights kept on a trainer server come here once, for the final comparison.
      for (const { learner } of learners.values()) await learner.kept?.fetch();
      const startDecoders = new DecoderPool({ policy: (name) => ({ ...pool.initial(name), name }), version: () => 0 }, decoding);
      const trainedDecoders = runtime instanceof DecoderPool ? null : new DecoderPool(pool, decoding);
      try {
        const startArena = arenaFor(game, withEndpoints(startDecoders), pool.tokenizer, stopTokens, arena.sampling, arena);
        const trainedArena = trainedDecoders ? arenaFor(game, withEndpoints(trainedDecoders), pool.tokenizer, stopTokens, arena.sampling, arena) : arena;
        comparison = await compareWithStart(trainedArena, startArena, task, config.finalComparison, finalSeeds(config.seed), game.rotation.at(0).seats, game.validateOn);
      } finally {
        await startDecoders.release();
        await trainedDecoders?.release();
      }
    }
    if (state.step === config.steps && !stopped()) {
      const summary = await runSummaryOf(game.id, state.step, comparison, files.validation);
      await writeRunSummary(run.out, summary);
      await scalars(state.step, summaryScalars(summary));
      events.publish({ type: 'run-summary', summary });
    }
  } catch (error) {
    failed = true;
    throw error;
  } finally {
    await ahead.drain();
    await runtime.release();
    await scorers.release();
    for (const { learner } of learners.values()) await learner.release();
    // Stopped before its last step (Ctrl-C, SIGTERM, a partial run): KILLED, as MLflow names a run its user ended.
    await tracking?.close(failed ? 'FAILED' : state.step >= config.steps ? 'FINISHED' : 'KILLED');
  }
  return { steps: state.step, checkpointed, best: state.best, ...(comparison ? { comparison } : {}), ...(stopped() && state.step < config.steps ? { stopped: true as const } : {}) };

  async function validateAndKeepBest(step: number): Promise<void> {
    const seats = game.rotation.at(0).seats;
    const result = await validate(arena, task, 'validation', config.validationProblems, validationSeeds(config.seed, step), seats, game.validateOn);
    await appendJsonl(files.validation, [
      { step, split: result.split, ...(validationSource?.heldOutOfTrain ? { held_out_of_train: validationSource.heldOutOfTrain } : {}), accuracy: result.accuracy, answer_present: result.answerPresent, problems: result.problems, role: result.role, policy: seats[result.role], written: writtenHow(game.protocol, result.role), protocol: game.protocol.name, ...(Object.keys(result.judges).length > 0 ? { judges: result.judges } : {}) },
    ]);
    events.publish({ type: 'validation', step, role: result.role, accuracy: result.accuracy, answerPresent: result.answerPresent });
    await scalars(step, validationMetrics(result.role, result.accuracy, result.answerPresent));
    await keepBest(step, result.accuracy, result.split);
  }

  /** best/ holds every trained policy as it was at the step with the highest measure so far (validation accuracy, or the fixed opponents' mean score). */
  async function keepBest(step: number, accuracy: number, split: NonNullable<TrainerState['best']>['split']): Promise<void> {
    if (state.best !== null && accuracy <= state.best.accuracy) return;
    state.best = { step, accuracy, split };
    for (const { name, learner } of learners.values()) {
      const dir = join(run.out, BEST_DIR, name);
      if (learner.kept) await learner.kept.writeForSamplers(resolve(dir));
      else await saveBestPolicy(dir, { config: pool.policy(name).config, weights: learner.weights, baseModel: resolve(pool.dir(name)) }, pool.tokenizer.json);
    }
  }
}

async function writeRunRecord(out: string, record: RunRecord, tokenizerJson: unknown): Promise<void> {
  await writeFile(join(out, RUN_FILE), `${JSON.stringify(record, null, 2)}\n`);
  await writeFile(join(out, TOKENIZER_FILE), JSON.stringify(tokenizerJson));
}

/**
 * The task as the run uses it: where it validates (validateEvery > 0) and has no validation split of its own, the
 * validation problems are held out of its train split (withValidationSplit), never taken from its test split.
 */
export function tasksOfRun(task: Task, config: Pick<TrainConfig, 'validateEvery' | 'validationProblems'>): { task: Task; source: ValidationSource | null } {
  return config.validateEvery > 0 ? withValidationSplit(task, config.validationProblems) : { task, source: null };
}

/** What each endpoint policy was asked during a step: requests, the endpoint's token counts, retries (deltas of its usage). */
function endpointMetrics(endpoints: ReadonlyMap<string, EndpointClient>, before: ReadonlyMap<string, EndpointUsage>): Record<string, EndpointMetrics> {
  return Object.fromEntries(
    [...endpoints].map(([name, client]) => {
      const now = client.usage;
      const was = before.get(name) ?? { calls: 0, promptTokens: 0, completionTokens: 0, retries: 0 };
      return [name, { endpoint_calls: now.calls - was.calls, endpoint_prompt_tokens: now.promptTokens - was.promptTokens, endpoint_completion_tokens: now.completionTokens - was.completionTokens, endpoint_retries: now.retries - was.retries }];
    }),
  );
}

function roleMetrics(game: Game, matches: readonly PlayedMatch[], learned: ReadonlyMap<string, PolicyLearning>): Record<string, RoleMetrics> {
  const byRole: Record<string, RoleMetrics> = {};
  for (const role of game.roles) {
    const rollouts = roleRollouts(matches, role);
    const verdicts = matches.map((match) => graderVerdict(match, role));
    const judged = verdicts.some((verdict) => verdict !== undefined);
    const learning = [...learned.values()].map((l) => l.roles[role]).find((r) => r !== undefined);
    byRole[role] = {
      ...labelMeans(rollouts.map((r) => r.rewards.labels ?? {})),
      ...judgeMetrics(matches.map((match) => match.rewards.verdicts ?? []), role),
      reward_mean: mean(rollouts.map((r) => r.rewards.outcome)),
      reward_std: deviation(rollouts.map((r) => r.rewards.outcome)),
      answer_present: judged ? mean(verdicts.map((v) => (v?.answer_present ? 1 : 0))) : null,
      correct: judged ? mean(verdicts.map((v) => (v?.correct ? 1 : 0))) : null,
      response_len: mean(rollouts.map((r) => r.rewards.tokens)),
      ...toolMetrics(rollouts.map((r) => r.turns.filter((turn) => turn.role === role))),
      ...(game.protocol.family === 'world' ? worldLabelMeans(rollouts.map((r) => r.rewards.labels)) : {}),
      ...(learning
        ? {
            ...(learning.share === undefined ? {} : { share: learning.share }),
            zero_variance_groups: learning.zeroVarianceGroups,
            dropped: learning.dropped,
            ...learning.metrics,
          }
        : {}),
    };
  }
  return byRole;
}

/**
 * The mean of each label the game gave the role's rollouts (Agon's challenger: `draft_correct`, `converted`, whose
 * ratio is the conversions per wrong draft), over the rollouts that carry it; the metrics of every role win a name clash.
 */
function labelMeans(labels: readonly Readonly<Record<string, number>>[]): Record<string, number> {
  const names = [...new Set(labels.flatMap((l) => Object.keys(l)))];
  return Object.fromEntries(names.map((name) => [name, mean(labels.filter((l) => name in l).map((l) => l[name]))]));
}

/** Per match (in order), per role a policy learned from: what the estimator gave the role's rollout. */
function advantagesByMatch(matches: readonly PlayedMatch[], learned: ReadonlyMap<string, PolicyLearning>, seats: Readonly<Record<string, string>>): Record<string, MatchAdvantage>[] {
  const byMatch: Record<string, MatchAdvantage>[] = matches.map(() => ({}));
  for (const learning of learned.values()) {
    for (const [role, result] of Object.entries(learning.roles)) {
      result.advantages.forEach(({ advantage, dropped }, i) => (byMatch[i][role] = { policy: seats[role], advantage, dropped }));
    }
  }
  return byMatch;
}

/** The run budget of a new run's local learners: chosen from the memory their training state leaves (none: the floor). */
function runBudgetOf(local: readonly ModelConfig[]): number {
  return local.length === 0 ? RUN_BUDGET_BYTES : chooseRunBudget(local.reduce((n, c) => n + trainingStateBytes(c), 0), local.length);
}

/** A checkpoint's run budget; one made before budgets were recorded ran at the floor. */
function recordedRunBudget(dir: string, recorded: unknown): number {
  if (recorded === undefined) return RUN_BUDGET_BYTES;
  if (typeof recorded === 'number' && Number.isSafeInteger(recorded) && recorded > 0) return recorded;
  return fail('DATA_INVALID', `${dir}: trainer_state.json's runBudgetBytes is ${JSON.stringify(recorded)}, expected a positive whole number of bytes`, { dir, field: 'runBudgetBytes' });
}

/** A resumed run must be the same run; only its length and where it is tracked may change. Every field that differs is named. */
function checkSameRun(dir: string, saved: TrainConfig, requested: TrainConfig): void {
  const { steps: _savedSteps, tracking: _savedTracking, ...savedRest } = TrainConfigSchema.parse(saved);
  const { steps: _requestedSteps, tracking: _requestedTracking, ...requestedRest } = requested;
  const differences = jsonDifferences(savedRest, requestedRest);
  if (differences.length > 0) {
    const shown = differences.map((d) => `${d.path} (checkpoint ${d.before}, now ${d.after})`).join('; ');
    fail('CONFIG_INVALID', `${dir}: the checkpoint was made with a different training config: ${shown}; resume with the run's own config (--resume with only --out reads it from run.json), or start a new --out`, {
      dir,
      fields: differences.map((d) => d.path),
    });
  }
}

/**
 * The problems of the step that starts at data position `cursor`: problemsPerStep train problems, the positions
 * cycling through a finite training set when one is set.
 */
export function stepProblems(task: Task, config: Pick<TrainConfig, 'problemsPerStep' | 'trainProblems'>, cursor: number): Problem[] {
  const index = (position: number) => (config.trainProblems === undefined ? position : position % config.trainProblems);
  return Array.from({ length: config.problemsPerStep }, (_, j) => task.sample('train', index(cursor + j)));
}

/** A world game's labels (win, draw, loss, illegal tries, forfeit, truncated, a negotiation's deal), each averaged over the step's matches. */
function worldLabelMeans(labels: readonly Readonly<Record<string, number>>[]): Record<string, number> {
  const names = [...new Set(labels.flatMap((l) => Object.keys(l)))].filter((name) => name !== FORFEIT_START_LABEL);
  return Object.fromEntries(names.map((name) => [name, mean(labels.map((l) => l[name] ?? 0))]));
}

/** The population standard deviation (0 for fewer than two values). */
function deviation(values: readonly number[]): number {
  const m = mean(values);
  return Math.sqrt(mean(values.map((v) => (v - m) ** 2)));
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
}
