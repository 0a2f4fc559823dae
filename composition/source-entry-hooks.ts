// Module resolution hooks (node:module register) for the installed package: its examples import ludus's public entry
// as the checkout has it, `../../index.ts`, which the package does not ship; the hooks send that one import to the
// compiled entry the package does ship. Nothing else is touched.

let sourceEntry = '';
let compiledEntry = '';

/** The entry's two URLs: the source file the examples name, and the compiled one to load instead. */
export function initialize(data: { sourceEntry: string; compiledEntry: string }): void {
  sourceEntry = data.sourceEntry;
  compiledEntry = data.compiledEntry;
}

type Resolve = (specifier: string, context: { parentURL?: string }) => Promise<{ url: string; shortCircuit?: boolean }>;

export async function resolve(specifier: string, context: { parentURL?: string }, next: Resolve): Promise<{ url: string; shortCircuit?: boolean }> {
  const relative = specifier.startsWith('./') || specifier.startsWith('../');
  if (relative && context.parentURL && new URL(specifier, context.parentURL).href === sourceEntry) return { url: compiledEntry, shortCircuit: true };
  return next(specifier, context);
}
