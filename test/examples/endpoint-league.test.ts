import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelServer } from '../../server/model-server/model-server.ts';
import { runLudus } from '../support/cli.ts';
import { startTestModelServer } from '../support/model-server.ts';
import { TEST_TOKEN } from '../support/server-token.ts';

/** examples/tournaments/endpoint-league.json end to end: its endpoint entrant is `ludus serve-model` on loopback. */
describe('the endpoint league example', () => {
  let server: ModelServer;
  let dir: string;
  beforeAll(async () => {
    server = await startTestModelServer({ task: 'world' });
    dir = await mkdtemp(join(tmpdir(), 'ludus-endpoint-league-'));
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('should rate the served entrant beside the two local ones, and train the trainable one', async () => {
    const example = JSON.parse(await readFile(new URL('../../examples/tournaments/endpoint-league.json', import.meta.url), 'utf8'));
    const served = example.entrants.find((e: { endpoint?: unknown }) => e.endpoint);
    served.endpoint.url = `${server.url}/v1`;
    const file = join(dir, 'league.json');
    await writeFile(file, JSON.stringify({ ...example, format: { kind: 'round-robin', cycles: 1 }, problemsPerRound: 2 }));
    const run = await runLudus(['tournament', file, '--out', join(dir, 'run'), '--no-watch', '--threads', '1'], { env: { ...process.env, LUDUS_TOKEN: TEST_TOKEN }, timeoutMs: 240_000 });
    expect(run.code, run.stderr).toBe(0);
    const reported = JSON.parse(run.stdout) as { standings: { entrant: string; matches?: number }[] };
    expect(reported.standings.map((s) => s.entrant).sort()).toEqual(['base', 'learner', 'served']);
    const updates = (await readFile(join(dir, 'run', 'updates.jsonl'), 'utf8')).trim().split('\n').map((line) => JSON.parse(line));
    expect(updates.some((u) => JSON.stringify(u).includes('learner'))).toBe(true);
  }, 300_000);
});
