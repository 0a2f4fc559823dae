// One phase of the real-size benchmark in a process of its own: `node real-size-phase.js NAME JSON` prints the
// phase's result as one JSON line, or {"error": {code, message}} for a coded refusal (MEMORY_INSUFFICIENT, ...).
import { register } from 'tsx/esm/api';

register();
const { PHASES } = await import('./real-size-phases.ts');
const [name, options] = process.argv.slice(2);
try {
  process.stdout.write(`${JSON.stringify(await PHASES[name](JSON.parse(options)))}\n`);
} catch (error) {
  if (!error?.code) throw error;
  process.stdout.write(`${JSON.stringify({ error: { code: error.code, message: error.message } })}\n`);
}
