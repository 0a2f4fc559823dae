import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRAINER_API } from '../../engine/remote/trainer-wire.ts';
import { saveAdapter } from '../../native/io/adapter.ts';
import { saveCheckpoint } from '../../native/io/checkpoint.ts';
import { adaptedWeights, initAdapter, withAdapter } from '../../native/model/lora.ts';
import { parseLoraConfig } from '../../native/model/lora-config.ts';
import { resolveModelDir } from '../../plugins/policies/default-model.ts';
import { loadPolicy } from '../../plugins/policies/load-policy.ts';
import type { ModelServer } from '../../server/model-server/model-server.ts';
import { startTrainerServer, type TrainerServer } from '../../server/trainer-server/trainer-server.ts';
import { startTestModelServer } from '../support/model-server.ts';
import { post, type RawAnswer } from '../support/raw-http.ts';
import { TEST_TOKEN } from '../support/server-token.ts';
import { trainerEngine } from '../support/trainer-backend.ts';

const SECRET = 'root:x:0:0:secret-0123456789';
/** What a safetensors header length read from the secret's first 8 bytes would print. */
const SECRET_AS_LENGTH = Buffer.from(SECRET).readBigUInt64LE(0).toString();

/**
 * Issue 46, section 1: every file a load opens is confined, not only the directory a request names; an adapter's
 * base is confined; "outside" is one answer whether or not the path exists; no error quotes a file's bytes.
 */
describe('the model servers as a request naming files outside the allowed directory meets them', () => {
  let allowed: string;
  let outside: string;
  let models: ModelServer;
  let trainer: TrainerServer;

  /** A full model directory at `dir` (the shipped arithmetic base's weights and tokenizer). */
  const modelAt = async (dir: string) => {
    const { policy, tokenizer } = await loadPolicy(resolveModelDir('default', 'arithmetic'));
    await saveCheckpoint(dir, policy.config, policy.weights, { extraFiles: { 'tokenizer.json': JSON.stringify(tokenizer!.json) } });
    return policy;
  };
  /** A PEFT adapter at `dir` over the base directory `base` (which need not exist). */
  const adapterAt = async (dir: string, base: string) => {
    const { policy } = await loadPolicy(resolveModelDir('default', 'arithmetic'));
    const config = withAdapter(policy.config, parseLoraConfig({ r: 2, initStdB: 0.05 }));
    await saveAdapter(dir, config, adaptedWeights(policy.weights, initAdapter(config, 3)), { baseModel: base });
  };
  const loads = (path: string): Array<[string, string, Record<string, unknown>]> => [
    [models.url, '/v1/load_lora_adapter', { lora_name: `a-${path}`, lora_path: path }],
    [models.url, '/load_lora_adapter', { lora_name: `b-${path}`, lora_path: path }],
    [models.url, '/update_weights_from_disk', { model_path: path }],
    [trainer.url, `${TRAINER_API}/create_model`, { request_id: `c-${path}`, base_model: path }],
  ];
  /** A 403 that names no byte of the secret and, unless the request named it, not the outside directory. */
  const expectForbidden = (answer: RawAnswer, what: string, named = false) => {
    expect(answer.status, `${what}: ${JSON.stringify(answer.json)}`).toBe(403);
    expect(answer.json.error?.code).toBe('PATH_FORBIDDEN');
    expect(answer.json.error?.message).not.toContain(SECRET.slice(0, 6));
    if (!named) expect(answer.json.error?.message).not.toContain(outside);
  };

  beforeAll(async () => {
    allowed = await mkdtemp(join(tmpdir(), 'ludus-allowed-'));
    outside = await mkdtemp(join(tmpdir(), 'ludus-outside-'));
    await modelAt(join(outside, 'model'));
    await writeFile(join(outside, 'secret'), SECRET);
    await chmod(join(outside, 'secret'), 0o600);
    // Directories inside whose files lead out: a whole model linked file by file, and a model whose config is the secret.
    await mkdir(join(allowed, 'linked-files'));
    for (const file of ['config.json', 'generation_config.json', 'model.safetensors', 'tokenizer.json']) await symlink(join(outside, 'model', file), join(allowed, 'linked-files', file));
    await modelAt(join(allowed, 'secret-config'));
    await rm(join(allowed, 'secret-config', 'config.json'));
    await symlink(join(outside, 'secret'), join(allowed, 'secret-config', 'config.json'));
    await modelAt(join(allowed, 'secret-weights'));
    await rm(join(allowed, 'secret-weights', 'model.safetensors'));
    await symlink(join(outside, 'secret'), join(allowed, 'secret-weights', 'model.safetensors'));
    // A link that leads nowhere, and a link to a directory outside.
    await modelAt(join(allowed, 'dangling'));
    await symlink(join(outside, 'absent'), join(allowed, 'dangling', 'extra.json'));
    await symlink(outside, join(allowed, 'link-out'));
    // Adapters inside whose bases lie outside (existing or not), and one whose base is inside.
    await adapterAt(join(allowed, 'adapter-out'), join(outside, 'model'));
    await adapterAt(join(allowed, 'adapter-absent-base'), join(outside, 'absent'));
    await modelAt(join(allowed, 'base'));
    await adapterAt(join(allowed, 'adapter-in'), join(allowed, 'base'));
    // A model whose files are links that stay inside (a Hugging Face cache's layout): allowed.
    await modelAt(join(allowed, 'blobs'));
    await mkdir(join(allowed, 'snapshot'));
    for (const file of ['config.json', 'model.safetensors', 'tokenizer.json']) await symlink(join(allowed, 'blobs', file), join(allowed, 'snapshot', file));
    // Files inside that are not what they should be, holding text that must not be echoed.
    await modelAt(join(allowed, 'bad-config'));
    await writeFile(join(allowed, 'bad-config', 'config.json'), SECRET);
    await modelAt(join(allowed, 'bad-weights'));
    await writeFile(join(allowed, 'bad-weights', 'model.safetensors'), SECRET);
    await modelAt(join(allowed, 'bad-tokenizer'));
    await writeFile(join(allowed, 'bad-tokenizer', 'tokenizer.json'), SECRET);

    models = await startTestModelServer({ allowDirs: [allowed], limits: { maxAdapters: 4 } });
    trainer = await startTrainerServer({ ...(await trainerEngine()), host: '127.0.0.1', port: 0, threads: 1, task: 'arithmetic', token: TEST_TOKEN, allowDirs: [allowed] });
  }, 120_000);

  afterAll(async () => {
    await models?.close();
    await trainer?.close();
    await rm(allowed, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
  });

  describe('having a directory inside whose files are links out of it', () => {
    it('should refuse every load of it with 403 PATH_FORBIDDEN on both servers, naming neither the target nor its bytes', async () => {
      for (const dir of ['linked-files', 'secret-config', 'secret-weights', 'dangling']) {
        for (const [url, path, body] of loads(join(allowed, dir))) expectForbidden(await post(url, path, body), `${dir} ${path}`);
      }
    });

    it('should still load a directory whose links stay inside the allowed one', async () => {
      expect((await post(models.url, '/v1/load_lora_adapter', { lora_name: 'snapshot', lora_path: join(allowed, 'snapshot') })).status).toBe(200);
      expect((await post(models.url, '/v1/unload_lora_adapter', { lora_name: 'snapshot' })).status).toBe(200);
    });
  });

  describe('having an adapter inside whose base_model_name_or_path lies outside', () => {
    it('should refuse it with the same 403 whether that base exists or not, and load one whose base is inside', async () => {
      const answers: string[] = [];
      for (const dir of ['adapter-out', 'adapter-absent-base']) {
        for (const [url, path, body] of loads(join(allowed, dir)).slice(0, 2)) {
          const answer = await post(url, path, body);
          expectForbidden(answer, `${dir} ${path}`);
          answers.push(answer.json.error!.message.replace(dir, 'DIR'));
        }
      }
      expect(new Set(answers).size).toBe(1);
      expect((await post(models.url, '/v1/load_lora_adapter', { lora_name: 'in', lora_path: join(allowed, 'adapter-in') })).status).toBe(200);
      expect((await post(models.url, '/v1/completions', { model: 'in', prompt: [1, 2, 3], max_tokens: 2 })).status).toBe(200);
      expect((await post(models.url, '/v1/unload_lora_adapter', { lora_name: 'in' })).status).toBe(200);
    });
  });

  describe('having paths that exist and paths that do not, outside or through a link that leads out', () => {
    it('should give one answer for outside, whether the path exists or not, and name no home directory', async () => {
      // Relative to the server's working directory (the checkout): server/page and node_modules/zod exist, the others do not.
      const probes = ['server/page', 'node_modules/zod', 'no/such', 'Qwen/Qwen3-0.6B', 'gpt2', join(allowed, 'link-out', 'model'), join(allowed, 'link-out', 'absent'), join(outside, 'model'), join(outside, 'absent')];
      const messages = new Set<string>();
      for (const probe of probes) {
        for (const [url, path, body] of [loads(probe)[0], loads(probe)[3]]) {
          const answer = await post(url, path, body);
          expectForbidden(answer, `${probe} ${path}`, probe.startsWith(outside));
          expect(answer.json.error?.message).not.toContain(homedir());
          messages.add(`${path} ${answer.json.error!.message.replace(probe, 'PATH')}`);
        }
      }
      expect(messages.size).toBe(2);
      // Inside the allowed directory, an absent path is 404: the caller may know what is there.
      expect((await post(trainer.url, `${TRAINER_API}/create_model`, { request_id: 'absent-in', base_model: join(allowed, 'absent') })).status).toBe(404);
    });
  });

  describe('having files inside that are not what they should be', () => {
    it('should refuse them with a coded 4xx that quotes none of their bytes', async () => {
      for (const dir of ['bad-config', 'bad-weights', 'bad-tokenizer']) {
        for (const [url, path, body] of loads(join(allowed, dir))) {
          let answer = await post(url, path, body);
          if (path.endsWith('create_model')) answer = await post(url, `${TRAINER_API}/retrieve_future`, { request_id: body.request_id, wait_ms: 30_000 });
          const text = JSON.stringify(answer.json);
          expect(text, `${dir} ${path}`).toMatch(/"code":"(CONFIG_INVALID|SAFETENSORS_MALFORMED|TOKENIZER_INVALID)"/);
          expect(text).not.toContain(SECRET.slice(0, 6));
          expect(text).not.toContain(SECRET_AS_LENGTH);
        }
      }
    });
  });
});
