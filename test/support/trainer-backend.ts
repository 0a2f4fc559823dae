import type { LearnerEngine } from '../../server/trainer-server/learner-engines.ts';
import { TorchEngine } from '../../server/trainer-server/learner-engines.ts';
import { PYTHON } from './optional.ts';

/**
 * The engine the trainer server's door tests run on: onnxruntime, or the torch backend when
 * LUDUS_TEST_TRAINER_BACKEND=torch (vitest.config.ts runs the security files a second time so: the door must hold
 * whatever computes behind it).
 */
export const TRAINER_BACKEND: 'onnxruntime' | 'torch' = process.env.LUDUS_TEST_TRAINER_BACKEND === 'torch' ? 'torch' : 'onnxruntime';

/** What startTrainerServer is given for the backend under test. */
export async function trainerEngine(): Promise<{ engine?: LearnerEngine }> {
  return TRAINER_BACKEND === 'torch' ? { engine: await TorchEngine.open({ python: PYTHON, threads: 1 }) } : {};
}

/** The flags a spawned `ludus serve-trainer` is given for the backend under test. */
export const trainerBackendFlags = (): string[] => (TRAINER_BACKEND === 'torch' ? ['--backend', 'torch', '--python', PYTHON] : []);
