import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LudusError } from '../../../core/errors.ts';
import { EndpointClient } from '../../../engine/remote/endpoint-client.ts';
import { EndpointSchema } from '../../../engine/remote/endpoint-config.ts';
import { EndpointRuntime } from '../../../engine/remote/endpoint-runtime.ts';
import type { MatchRuntime } from '../../../engine/match/runtime.ts';
import { ticTacToeGame } from '../../../games/tictactoe.ts';
import { evaluateWorld } from '../../../lab/eval/world-eval.ts';
import { resolveModelDir } from '../../../plugins/policies/default-model.ts';
import { loadTokenizer } from '../../../plugins/tokenizers/hf-tokenizer.ts';
import type { ModelServer } from '../../../server/model-server/model-server.ts';
import { runLudus } from '../../support/cli.ts';
import { startTestModelServer } from '../../support/model-server.ts';
import { TEST_TOKEN } from '../../support/server-token.ts';

/** A chat template in ChatML's shape, for a copy of the shipped world base (which has none). */
const CHAT_TEMPLATE = "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}";

/** The shipped world base behind `ludus serve-model` on loopback: the endpoint every test here plays against. */
describe('a world-game opponent behind an OpenAI-compatible endpoint', () => {
  let server: ModelServer;
  let dir: string;
  const endpoint = () => ({ url: `${server.url}/v1`, model: 'base', tokenEnv: 'ENDPOINT_TEST_TOKEN', api: 'completions' as const, sampling: { temperature: 1 } });

  beforeAll(async () => {
    process.env.ENDPOINT_TEST_TOKEN = TEST_TOKEN;
    server = await startTestModelServer({ task: 'world' });
    dir = await mkdtemp(join(tmpdir(), 'ludus-endpoints-'));
  }, 60_000);

  afterAll(async () => {
    delete process.env.ENDPOINT_TEST_TOKEN;
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('should seat it as the opponent of every seat in turn and count what it was asked', async () => {
    const [result] = await evaluateWorld({
      game: ticTacToeGame(undefined),
      modelDir: resolveModelDir('default', 'world'),
      opponents: ['endpoint:served'],
      endpoints: { served: EndpointSchema.parse(endpoint()) },
      matches: 4,
      seed: 3,
      temperature: 1,
      topP: 1,
      threads: 1,
    });
    expect(result.opponent).toBe('endpoint:served');
    expect(result.matches).toBe(4);
    expect(result.win.rate + result.draw.rate + result.loss.rate).toBeCloseTo(1, 9);
    // Each match has the endpoint move at least once (TicTacToe lasts at least five moves).
    expect(result.endpoint!.calls).toBeGreaterThanOrEqual(8);
    expect(result.endpoint!.promptTokens).toBeGreaterThan(0);
    expect(result.endpoint!.completionTokens).toBeGreaterThan(0);
    expect(result.endpoint!.retries).toBe(0);
  }, 120_000);

  it("should speak the chat API to serve-model's /v1/chat/completions, a model with a chat template behind it", async () => {
    const chatDir = join(dir, 'chat-model');
    await mkdir(chatDir);
    const base = resolveModelDir('default', 'world');
    for (const file of ['config.json', 'generation_config.json', 'model.safetensors', 'tokenizer.json']) await copyFile(join(base, file), join(chatDir, file));
    await writeFile(join(chatDir, 'tokenizer_config.json'), JSON.stringify({ chat_template: CHAT_TEMPLATE, eos_token: '<|endoftext|>' }));
    const chat = await startTestModelServer({ model: chatDir });
    try {
      const [result] = await evaluateWorld({
        game: ticTacToeGame(undefined),
        modelDir: base,
        opponents: ['endpoint:chat'],
        endpoints: { chat: EndpointSchema.parse({ ...endpoint(), url: `${chat.url}/v1`, api: 'chat' }) },
        matches: 2,
        seed: 4,
        temperature: 1,
        topP: 1,
        threads: 1,
      });
      expect(result.matches).toBe(2);
      expect(result.endpoint!.calls).toBeGreaterThanOrEqual(2);
      expect(result.endpoint!.promptTokens).toBeGreaterThan(0);
    } finally {
      await chat.close();
    }
  }, 120_000);

  it('should run as `ludus eval --game tictactoe --opponents endpoint:<name>` with the endpoints file of the working directory', async () => {
    await writeFile(join(dir, 'ludus-endpoints.json'), JSON.stringify({ served: endpoint() }));
    const run = await runLudus(['eval', '--game', 'tictactoe', '--opponents', 'endpoint:served', '--matches', '2', '--threads', '1', '--json'], { cwd: dir, env: { ...process.env, ENDPOINT_TEST_TOKEN: TEST_TOKEN } });
    expect(run.code, run.stderr).toBe(0);
    const { results } = JSON.parse(run.stdout) as { results: Array<{ opponents: Array<{ opponent: string; matches: number; endpoint: { calls: number } }> }> };
    expect(results[0].opponents[0]).toMatchObject({ opponent: 'endpoint:served', matches: 2 });
    expect(results[0].opponents[0].endpoint.calls).toBeGreaterThan(0);
  }, 120_000);

  it('should refuse an endpoint that is not in the file, naming those that are', async () => {
    await writeFile(join(dir, 'ludus-endpoints.json'), JSON.stringify({ served: endpoint() }));
    const run = await runLudus(['eval', '--game', 'tictactoe', '--opponents', 'endpoint:elsewhere', '--matches', '2'], { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('no endpoint "elsewhere" (endpoints: served)');
  }, 60_000);

  it('should refuse to co-write a turn (word handoff) with a coded error that says why', async () => {
    const tokenizer = await loadTokenizer('models/world/tokenizer.json');
    const inner: MatchRuntime = { rows: 4, maxLen: 64, generate: () => Promise.reject(new Error('not reached')), release: async () => {} };
    const runtime = new EndpointRuntime(inner, new Map([['junior', new EndpointClient('served', EndpointSchema.parse(endpoint()))]]), tokenizer);
    const call = { policies: ['senior', 'junior'], prompts: [[1, 2]], maxNewTokens: 4, seed: 0, sampling: { temperature: 1, topK: 0, topP: 1 }, stopTokens: [0], schedule: { kind: 'word' as const, p: 0.5, K: 32, seed: 0, boundary: [] }, partnerLogprobs: true };
    const error = await runtime.generate(call).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(LudusError.is(error, 'REMOTE_UNSUPPORTED')).toBe(true);
    expect((error as Error).message).toContain("word handoff needs each author's log-probability of every token, which an endpoint does not give");
  });
});
