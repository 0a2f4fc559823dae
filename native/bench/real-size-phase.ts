import { LudusError } from '../../core/errors.ts';
import { PHASES } from './real-size-phases.ts';

/**
 * One phase of the real-size benchmark in a process of its own: `real-size-phase NAME JSON` prints the phase's
 * result as one JSON line, or `{"error": {code, message}}` for a coded refusal (MEMORY_INSUFFICIENT, ...).
 */
const [name, options] = process.argv.slice(2);
try {
  const phase = PHASES[name as keyof typeof PHASES] as (options: never) => Promise<unknown>;
  process.stdout.write(`${JSON.stringify(await phase(JSON.parse(options) as never))}\n`);
} catch (error) {
  if (!(error instanceof LudusError)) throw error;
  process.stdout.write(`${JSON.stringify({ error: { code: error.code, message: error.message } })}\n`);
}
