import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyChatTemplate } from '../../../plugins/tokenizers/chat-template.ts';
import { resolveModelDir } from '../../../plugins/policies/default-model.ts';
import type { ModelServer } from '../../../server/model-server/model-server.ts';
import { startTestModelServer } from '../../support/model-server.ts';
import { TEST_TOKEN } from '../../support/server-token.ts';

/** A chat template in ChatML's shape, given to a copy of the shipped base (which has none). */
const CHAT_TEMPLATE = "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}";

/** `ludus serve-model` driven by the official `openai` client, as any tool that speaks the API would drive it. */
describe('ludus serve-model behind the official openai client', () => {
  let server: ModelServer;
  let plain: ModelServer;
  let dir: string;
  let client: OpenAI;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ludus-chat-model-'));
    const base = resolveModelDir('default', 'arithmetic');
    for (const file of ['config.json', 'generation_config.json', 'model.safetensors', 'tokenizer.json']) await copyFile(join(base, file), join(dir, file));
    await writeFile(join(dir, 'tokenizer_config.json'), JSON.stringify({ chat_template: CHAT_TEMPLATE, eos_token: '<|endoftext|>' }));
    [server, plain] = await Promise.all([startTestModelServer({ model: dir }), startTestModelServer()]);
    client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: TEST_TOKEN, maxRetries: 0 });
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    await plain?.close();
    await rm(dir, { recursive: true, force: true });
  });

  describe('having a text prompt with n: 2 and logprobs: 3', () => {
    it('should tokenize it with the model\'s tokenizer, answer two choices with three alternatives a position, the sampled token among them when it is likely', async () => {
      const prompt = 'Compute 47 + 38.\n\n';
      const answer = await client.completions.create({ model: 'base', prompt, max_tokens: 10, seed: 5, n: 2, logprobs: 3, temperature: 1 });
      expect(answer.choices.map((c) => c.index)).toEqual([0, 1]);
      for (const choice of answer.choices) {
        const { tokens, token_logprobs, top_logprobs } = choice.logprobs!;
        expect(top_logprobs).toHaveLength(tokens!.length);
        top_logprobs!.forEach((alternatives, t) => {
          const values = Object.values(alternatives);
          expect(values).toHaveLength(3);
          expect(values.reduce((a, v) => a + Math.exp(v), 0)).toBeLessThanOrEqual(1 + 1e-6);
          expect(Math.max(...values)).toBeGreaterThanOrEqual(token_logprobs![t] - 1e-4);
          if (Object.keys(alternatives).includes(tokens![t])) expect(alternatives[tokens![t]]).toBeCloseTo(token_logprobs![t], 4);
        });
      }
      // Greedy: every sampled token is the first of its alternatives.
      const greedy = (await client.completions.create({ model: 'base', prompt, max_tokens: 10, temperature: 0, logprobs: 2, return_tokens_as_token_ids: true } as OpenAI.CompletionCreateParamsNonStreaming)).choices[0].logprobs!;
      greedy.top_logprobs!.forEach((alternatives, t) => {
        const [best] = Object.entries(alternatives).sort(([, a], [, b]) => b - a);
        expect(best[0]).toBe(greedy.tokens![t]);
      });
      // The same prompt as token ids, the same seed: the same first choice.
      const ids = server.models.tokenizer.encode(prompt);
      const viaIds = await client.completions.create({ model: 'base', prompt: ids as unknown as string, max_tokens: 10, seed: 5 });
      expect(viaIds.choices[0].text).toBe(answer.choices[0].text);
      expect(answer.usage).toMatchObject({ prompt_tokens: ids.length });
    });
  });

  describe('having stream: true', () => {
    it('should send Server-Sent Events whose text adds up to the answer without streaming, the last with the finish reason', async () => {
      const request = { model: 'base', prompt: 'Compute 12 + 9.\n\n', max_tokens: 16, seed: 11 };
      const whole = await client.completions.create(request);
      let text = '';
      let finish: string | null = null;
      for await (const chunk of await client.completions.create({ ...request, stream: true })) {
        text += chunk.choices[0].text;
        finish = chunk.choices[0].finish_reason ?? finish;
      }
      expect(text).toBe(whole.choices[0].text);
      expect(finish).toBe(whole.choices[0].finish_reason);
      // Each token's log-probability as it is decoded; with top-k alternatives (scored once a choice is decoded) the same text.
      const logprobs = (await client.completions.create({ ...request, logprobs: 0 })).choices[0].logprobs!.token_logprobs;
      const streamed: number[] = [];
      for await (const chunk of await client.completions.create({ ...request, logprobs: 0, stream: true })) streamed.push(...(chunk.choices[0].logprobs?.token_logprobs ?? []));
      expect(streamed).toEqual(logprobs);
      let withAlternatives = '';
      for await (const chunk of await client.completions.create({ ...request, logprobs: 2, stream: true })) {
        withAlternatives += chunk.choices[0].text;
        if (chunk.choices[0].text !== '') expect(Object.keys(chunk.choices[0].logprobs!.top_logprobs![0])).toHaveLength(2);
      }
      expect(withAlternatives).toBe(whole.choices[0].text);
    });
  });

  describe('having a chat conversation', () => {
    it('should render it through the model\'s chat template and sample as the same prompt would, streamed or not, with top alternatives', async () => {
      const messages = [{ role: 'user' as const, content: 'Compute 3 + 4.' }];
      const chat = await client.chat.completions.create({ model: 'base', messages, max_tokens: 12, seed: 3, logprobs: true, top_logprobs: 2 });
      const [choice] = chat.choices;
      expect(chat.object).toBe('chat.completion');
      expect(choice.message.role).toBe('assistant');
      const rendered = applyChatTemplate(server.models.tokenizer, messages, { addGenerationPrompt: true });
      expect(rendered.endsWith('<|im_start|>assistant\n')).toBe(true);
      const same = await client.completions.create({ model: 'base', prompt: rendered, max_tokens: 12, seed: 3 });
      expect(choice.message.content).toBe(same.choices[0].text);
      expect(choice.logprobs!.content!.every((entry) => entry.top_logprobs.length === 2)).toBe(true);
      let streamed = '';
      for await (const chunk of await client.chat.completions.create({ model: 'base', messages, max_tokens: 12, seed: 3, stream: true })) streamed += chunk.choices[0]?.delta.content ?? '';
      expect(streamed).toBe(choice.message.content);
    });

    it('should refuse a chat with a clear 400 when the model has no chat template, saying what to do and naming no server path', async () => {
      const noTemplate = new OpenAI({ baseURL: `${plain.url}/v1`, apiKey: TEST_TOKEN, maxRetries: 0 });
      const refused = (await noTemplate.chat.completions.create({ model: 'base', messages: [{ role: 'user', content: 'hi' }] }).catch((error: unknown) => error)) as { status: number; message: string };
      expect(refused).toMatchObject({ status: 400, message: expect.stringContaining('chat_template') });
      expect(refused.message).toContain('POST /v1/completions');
      expect(refused.message).not.toMatch(/tokenizer\.json|models\//);
    });
  });

  describe('having fields it does not serve', () => {
    it('should refuse each with a 400 naming the field, and the wrong key with a 401', async () => {
      const refused: [Record<string, unknown>, string][] = [
        [{ echo: true }, 'echo'],
        [{ best_of: 2 }, 'best_of'],
        [{ min_p: 0.1 }, 'min_p'],
        [{ logit_bias: { '5': 1 } }, 'logit_bias'],
        [{ n: 17 }, 'n'],
        [{ logprobs: 21 }, 'logprobs'],
      ];
      for (const [fields, name] of refused) {
        await expect(client.completions.create({ model: 'base', prompt: 'x', max_tokens: 2, ...fields } as OpenAI.CompletionCreateParamsNonStreaming)).rejects.toMatchObject({ status: 400, message: expect.stringContaining(name) });
      }
      await expect(client.chat.completions.create({ model: 'base', messages: [{ role: 'user', content: 'x' }], top_logprobs: 2 })).rejects.toMatchObject({ status: 400, message: expect.stringContaining('top_logprobs') });
      const stranger = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'not-the-token-at-all-0000', maxRetries: 0 });
      await expect(stranger.completions.create({ model: 'base', prompt: 'x', max_tokens: 2 })).rejects.toMatchObject({ status: 401 });
    });
  });
});
