import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { pathExists } from '../../native/io/files.ts';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const env = { ...process.env, ONNXRUNTIME_NODE_INSTALL: 'skip', npm_config_fund: 'false', npm_config_audit: 'false' };

/** A user's game, written against the public entry only. */
const USER_GAME = `import { boxedAnswerReward, CoDecoding, defineGame, definePlugin, type Grader } from 'ludus';

const solo = (grader: Grader) =>
  defineGame({ id: 'my-solo', roles: ['writer'], protocol: CoDecoding.solo('writer'), rewards: boxedAnswerReward(['writer'], grader), trainable: ['writer'] });

export default definePlugin({ name: 'my-games', ludus: '^0.1.0', games: [{ name: 'my-solo', create: ({ grader }) => solo(grader) }] });
`;

describe('the published package', () => {
  it('should pack to JavaScript with .d.ts, install into a fresh project, type-check a user game importing ludus, and train it through npx ludus train --plugin', { timeout: 600_000 }, async () => {
    // Pack a copy of the checkout (its tracked files, with this checkout's node_modules), so building dist/ for the
    // tarball never touches the dist/ that other tests' `ludus` processes are running from.
    const copy = await mkdtemp(join(tmpdir(), 'ludus-pack-source-'));
    const { stdout: tracked } = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, maxBuffer: 64 << 20 });
    for (const file of tracked.split('\0').filter((name) => name !== '')) {
      await mkdir(dirname(join(copy, file)), { recursive: true });
      await copyFile(join(ROOT, file), join(copy, file));
    }
    await symlink(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
    const project = await mkdtemp(join(tmpdir(), 'ludus-user-project-'));
    await run('npm', ['run', 'build'], { cwd: copy, env, maxBuffer: 64 << 20 });
    await run('npm', ['pack', '--pack-destination', project], { cwd: copy, env, maxBuffer: 64 << 20 });
    const [tarball] = (await readdir(project)).filter((name) => name.endsWith('.tgz'));
    expect(tarball).toMatch(/^ludus-\d+\.\d+\.\d+\.tgz$/);
    await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'user-project', version: '1.0.0', type: 'module', private: true }));
    await run('npm', ['install', '--prefer-offline', `./${tarball}`], { cwd: project, env, maxBuffer: 64 << 20 });
    const installed = join(project, 'node_modules', 'ludus');
    expect(await readdir(join(installed, 'dist'))).toEqual(expect.arrayContaining(['index.js', 'index.d.ts']));
    expect((await readdir(dirname(join(installed, 'dist', 'cli', 'main.js')))).some((name) => name.endsWith('.ts') && !name.endsWith('.d.ts'))).toBe(false);

    await writeFile(join(project, 'my-game.ts'), USER_GAME);
    await writeFile(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true }, files: ['my-game.ts'] }));
    await run(process.execPath, [TSC, '-p', project], { cwd: project, env });

    await writeFile(join(project, 'tiny.json'), JSON.stringify({ problemsPerStep: 1, groupSize: 2, maxNewTokens: 32, validateEvery: 0, finalComparison: 0 }));
    const trained = await run('npx', ['ludus', 'train', 'my-solo', '--plugin', 'my-game.ts', '--config', 'tiny.json', '--steps', '2', '--out', 'runs/my-solo', '--no-watch', '--threads', '1'], { cwd: project, env });
    expect(JSON.parse(trained.stdout)).toMatchObject({ steps: 2 });
    const metrics = (await readFile(join(project, 'runs', 'my-solo', 'metrics.jsonl'), 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as { step: number; roles: Record<string, unknown> });
    expect(metrics.map((line) => line.step)).toEqual([1, 2]);
    expect(Object.keys(metrics[0].roles)).toEqual(['writer']);

    // The licence package.json names, and every file the README and the docs run with `npx ludus`, or name from
    // examples/, is in the package; the README's example game joins the catalog from there.
    expect(await readFile(join(installed, 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
    const named = await runnablePaths();
    expect(named).toEqual(expect.arrayContaining(['examples/proposer-critic/proposer-critic.ts', 'examples/tournaments/league.json']));
    const missing = [];
    for (const path of named) if (!(await pathExists(join(installed, path)))) missing.push(path);
    expect(missing).toEqual([]);
    const games = await run('npx', ['ludus', 'games', '--plugin', join('node_modules', 'ludus', 'examples', 'proposer-critic', 'proposer-critic.ts')], { cwd: project, env });
    expect(games.stdout).toContain('proposer-critic');
  });
});

/**
 * The paths the README and the docs give a user to run: every `examples/` or `models/` path in a line that runs
 * `npx ludus`, and every `examples/` path anywhere (tools/ scripts run from a checkout, through tsx, and say so).
 */
async function runnablePaths(): Promise<string[]> {
  const pages = ['README.md', ...(await readdir(join(ROOT, 'docs'), { recursive: true })).filter((name) => name.endsWith('.md')).map((name) => join('docs', name))];
  const paths = new Set<string>();
  // A path under examples/ or models/ at the root (test/examples/… is the repository's, not the package's).
  for (const page of pages) {
    for (const line of (await readFile(join(ROOT, page), 'utf8')).split('\n')) {
      for (const [path] of line.matchAll(/(?<![\w/])(?:examples|models)\/[\w./-]*[\w]/g)) {
        if (path.startsWith('examples/') || line.includes('npx ludus')) paths.add(path.replace(/[.]$/, ''));
      }
    }
  }
  return [...paths].sort();
}
