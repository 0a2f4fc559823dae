import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** What each top-level folder may import: arrows point down, and the engine never imports a game. */
const ALLOWED: Record<string, readonly string[]> = {
  core: ['core'],
  native: ['core', 'native'],
  plugins: ['core', 'native', 'plugins'],
  games: ['core', 'plugins', 'games'],
  engine: ['core', 'native', 'plugins', 'engine'],
  lab: ['core', 'native', 'plugins', 'engine', 'lab'],
  server: ['core', 'native', 'plugins', 'engine', 'server'],
  composition: ['core', 'native', 'plugins', 'games', 'composition'],
  cli: ['core', 'native', 'plugins', 'games', 'engine', 'lab', 'server', 'composition', 'cli'],
};

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : name.endsWith('.ts') || name.endsWith('.js') ? [path] : [];
  });
}

/** Every relative import of a file, as the top-level folder it lands in. */
function importedFolders(file: string): { specifier: string; folder: string }[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)'(\.{1,2}\/[^']+)'/g)].map((m) => m[1]);
  const from = posix.dirname(relative(ROOT, file).split('\\').join('/'));
  return specifiers.map((specifier) => ({ specifier, folder: posix.normalize(posix.join(from, specifier)).split('/')[0] }));
}

/** Every relative import of a file (relative to ROOT), as the file it names. */
function importedPaths(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)'(\.{1,2}\/[^']+)'/g)].map((m) => posix.normalize(posix.join(posix.dirname(file), m[1])));
}

/** The import circles of a graph: its strongly connected components of more than one file (Tarjan). */
function stronglyConnected(edges: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const circle: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      circle.push(w);
    } while (w !== v);
    if (circle.length > 1) circles.push(circle.sort());
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return circles;
}

describe('the layout', () => {
  for (const [folder, allowed] of Object.entries(ALLOWED)) {
    describe(`having the files under ${folder}/`, () => {
      it(`should import only from ${allowed.join(', ')}`, () => {
        const wrong = sources(join(ROOT, folder)).flatMap((file) =>
          importedFolders(file)
            .filter(({ folder: target }) => !allowed.includes(target))
            .map(({ specifier }) => `${relative(ROOT, file)} imports ${specifier}`),
        );
        expect(wrong).toEqual([]);
      });
    });
  }

  describe('having the public entry (index.ts)', () => {
    it('should import nothing from cli/: what the package exports sits below the command line', () => {
      expect(importedFolders(join(ROOT, 'index.ts')).filter(({ folder }) => folder === 'cli')).toEqual([]);
    });
  });

  describe('having every source file', () => {
    it('should import in no circle: a type file or a smaller module makes each way one-directional', () => {
      const folders = [...Object.keys(ALLOWED)];
      const files = new Set(folders.flatMap((folder) => sources(join(ROOT, folder))).map((file) => relative(ROOT, file).split('\\').join('/')));
      const edges = new Map([...files].map((file) => [file, importedPaths(file).filter((target) => files.has(target))]));
      expect(stronglyConnected(edges)).toEqual([]);
    });
  });

  describe('having core/', () => {
    it('should do no I/O: no node: module, no onnxruntime, no ws', () => {
      const io = sources(join(ROOT, 'core')).filter((file) => /from\s+'(node:|onnxruntime|ws['/]|fs['/])/.test(readFileSync(file, 'utf8')));
      expect(io.map((file) => relative(ROOT, file))).toEqual([]);
    });
  });
});
