import { buildSchedule, parseScheduleSpec, type ScheduleSpec } from '../../core/schedules/spec.ts';
import type { ModelConfig } from '../model/config.ts';
import { cloneWeights, type Weights } from '../model/weights.ts';
import { Decoder, type DecoderOptions } from '../runtime/decoder.ts';
import { generate, type GenerateOptions, type Rollout } from '../runtime/generate.ts';
import type { Policy } from '../runtime/policy.ts';
import type { LearnerConfigInput } from '../train/learner-config.ts';
import type { Learner, LearnBatch, ScoreBatch, StepStats } from '../train/learner.ts';
import { Registry, type Handle } from './handles.ts';
import type { CallContext } from './protocol.ts';

export type DecoderHandle = Handle<'decoder'>;
export type LearnerHandle = Handle<'learner'>;
export type EngineHandle = DecoderHandle | LearnerHandle;

/** generate's options as plain data: the schedule as a spec; streaming and abort travel as messages. */
export interface EngineGenerateOptions extends Omit<GenerateOptions, 'schedule' | 'onStep' | 'signal'> {
  schedule?: ScheduleSpec;
  /** Send a StepEvent after every step. */
  stream?: boolean;
}

export interface StepEvent {
  step: number;
  /** The token each row just emitted, -1 for finished rows. */
  tokens: Int32Array;
  authors: Int32Array;
}

export interface EngineDefaults {
  /** ORT intra-op threads for objects that do not name their own. */
  threads?: number;
}

/**
 * Everything the engine worker can do, one entry per call: the client's `call(name, args)` is typed from this table,
 * so a new capability is one entry here. Each entry takes the call's context, then its arguments.
 */
export function engineMethods(defaults: EngineDefaults = {}) {
  const decoders = new Registry<'decoder', Decoder>('decoder');
  const learners = new Registry<'learner', Learner>('learner');
  const releaseAny = (handle: EngineHandle): Promise<void> =>
    handle.kind === 'decoder' ? decoders.remove(handle, (d) => d.release()) : learners.remove(handle, (l) => l.release());

  return {
    async createDecoder(_: CallContext, policies: Policy[], options: DecoderOptions): Promise<DecoderHandle> {
      return decoders.add(await Decoder.create(policies, { ...options, threads: options.threads ?? defaults.threads }));
    },

    generate(context: CallContext<StepEvent>, handle: DecoderHandle, prompts: readonly (readonly number[])[], options: EngineGenerateOptions): Promise<Rollout[]> {
      const { schedule, stream, ...rest } = options;
      const built = schedule ? buildSchedule(parseScheduleSpec(schedule)) : undefined;
      const onStep = stream ? (step: number, tokens: Int32Array, authors: Int32Array) => context.emit({ step, tokens, authors }) : undefined;
      return decoders.use(handle, (decoder) => generate(decoder, prompts, { ...rest, schedule: built, onStep, signal: context.signal }));
    },

    updatePolicy(_: CallContext, handle: DecoderHandle, index: number, policy: Policy): Promise<void> {
      return decoders.use(handle, (decoder) => decoder.updatePolicy(index, policy));
    },

    async createLearner(_: CallContext, config: ModelConfig, weights: Weights, learnerConfig: LearnerConfigInput = {}): Promise<LearnerHandle> {
      // Loaded on first use: a worker that only decodes never loads the training graphs.
      const { Learner } = await import('../train/learner.ts');
      return learners.add(await Learner.create(config, weights, { ...learnerConfig, threads: learnerConfig.threads ?? defaults.threads }));
    },

    learnerStep(_: CallContext, handle: LearnerHandle, batch: LearnBatch): Promise<StepStats> {
      return learners.use(handle, (learner) => learner.step(batch));
    },

    learnerScore(_: CallContext, handle: LearnerHandle, batch: ScoreBatch): Promise<Float32Array> {
      return learners.use(handle, (learner) => learner.score(batch));
    },

    /** A snapshot of the learner's current weights (for checkpoints). */
    learnerWeights(_: CallContext, handle: LearnerHandle): Promise<Weights> {
      return learners.use(handle, (learner) => cloneWeights(learner.weights));
    },

    /** Gives a decoder's policy `index` the learner's current weights without the weights leaving the worker. */
    async syncPolicy(_: CallContext, decoder: DecoderHandle, index: number, learner: LearnerHandle): Promise<void> {
      const weights = await learners.use(learner, (source) => cloneWeights(source.weights));
      await decoders.use(decoder, (target) => target.updatePolicy(index, { ...target.policies[index], weights }));
    },

    release(_: CallContext, handle: EngineHandle): Promise<void> {
      return releaseAny(handle);
    },

    async releaseAll(_: CallContext): Promise<void> {
      await Promise.all([...decoders.handles(), ...learners.handles()].map(releaseAny));
    },
  };
}

export type EngineMethods = ReturnType<typeof engineMethods>;
