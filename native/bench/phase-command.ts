import { fileURLToPath } from 'node:url';
import { siblingModule } from '../io/package-root.ts';

/** The phase entry (real-size-phase) beside this module; from the sources it runs under tsx's loader, from dist/ as plain JavaScript. */
export function phaseCommand(): string[] {
  const entry = fileURLToPath(siblingModule(import.meta.url, 'real-size-phase'));
  return entry.endsWith('.ts') ? ['--import', import.meta.resolve('tsx'), entry] : [entry];
}
