import { setFileOperationHook, type FileOperation } from '../../native/io/files.ts';

/** Thrown by the file-operation hook to stand for the process dying there. */
export class SimulatedCrash extends Error {
  constructor(readonly operation: FileOperation) {
    super(`simulated crash before ${operation.kind} ${operation.path}`);
  }
}

export interface CrashOutcome {
  /** The file operations that ran (all of them when nothing crashed; those before the crash otherwise). */
  readonly operations: readonly FileOperation[];
  readonly crashed: boolean;
}

/**
 * Runs `action` with the process "dying" just before its file operation number `at` (0-based; undefined: never):
 * that operation and every later one throw, as nothing runs after a kill, so no cleanup handler can tidy up.
 */
export async function runCrashingAt(at: number | undefined, action: () => Promise<unknown>): Promise<CrashOutcome> {
  const operations: FileOperation[] = [];
  let dead: SimulatedCrash | undefined;
  setFileOperationHook((operation) => {
    if (dead === undefined && operations.length === at) dead = new SimulatedCrash(operation);
    if (dead) throw dead;
    operations.push(operation);
  });
  try {
    await action();
    return { operations, crashed: false };
  } catch (error) {
    if (dead === undefined || !(error instanceof SimulatedCrash)) throw error;
    return { operations, crashed: true };
  } finally {
    setFileOperationHook(undefined);
  }
}
