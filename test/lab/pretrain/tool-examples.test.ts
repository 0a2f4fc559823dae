import { describe, expect, it } from 'vitest';
import { Rng } from '../../../core/rng.ts';
import { TOOL_TAG } from '../../../core/tools/call-formats.ts';
import { toolUse } from '../../../core/tools/tool-use.ts';
import { answerCall } from '../../../engine/match/run-tool.ts';
import { sftBatch, tokenizeExample } from '../../../lab/pretrain/sft-batch.ts';
import { MALFORMED_OPENERS, toolCallExample } from '../../../lab/pretrain/tool-examples.ts';
import { multiplicationTask } from '../../../plugins/tasks/multiplication/multiplication-task.ts';
import { calcPrompt, calcTool } from '../../../plugins/tools/calc.ts';
import { loadTokenizer } from '../../../plugins/tokenizers/hf-tokenizer.ts';

const task = multiplicationTask();

describe("the calc game's supervised examples", () => {
  it('should answer a well-formed call with what the engine appends, then copy the result into the boxed answer', async () => {
    for (let i = 0; i < 20; i++) {
      const problem = task.sample('train', i);
      const example = toolCallExample(problem, new Rng(i), { callRate: 1, malformedRate: 0 });
      const [call, env, answer] = example.parts!;
      const engine = await answerCall(toolUse([calcTool]), TOOL_TAG.parse(call.text));
      expect(engine.code).toBeUndefined();
      expect(env).toEqual({ text: TOOL_TAG.observation(engine.content), env: true });
      expect(engine.content).toBe(problem.answer);
      expect(answer.text).toBe(`\nThe answer is \\boxed{${problem.answer}}.`);
      expect(example.prompt).toBe(calcPrompt(problem.prompt));
      expect(example.completion).toBe(example.parts!.map((part) => part.text).join(''));
    }
  });

  it('should answer a malformed call with the very error line the engine writes', async () => {
    const openers = new Set<string>();
    for (let i = 0; i < 60; i++) {
      const example = toolCallExample(task.sample('train', i), new Rng(i), { callRate: 1, malformedRate: 1 });
      const [call, env] = example.parts!;
      const engine = await answerCall(toolUse([calcTool]), TOOL_TAG.parse(call.text));
      expect(engine.code).toBe('TOOL_CALL_MALFORMED');
      expect(env.text).toBe(TOOL_TAG.observation(engine.content));
      openers.add(MALFORMED_OPENERS.find((opener) => call.text.startsWith(opener))!);
    }
    expect(openers.size).toBe(MALFORMED_OPENERS.length);
  });

  it('should call at the rate asked, and answer with no call otherwise', () => {
    const calls = Array.from({ length: 400 }, (_, i) => toolCallExample(task.sample('train', i), new Rng(1000 + i), { callRate: 0.2, malformedRate: 0.5 }).parts !== undefined).filter(Boolean).length;
    expect(calls).toBeGreaterThan(50);
    expect(calls).toBeLessThan(110);
  });

  it('should tokenise the environment part on its own and leave it out of the loss', async () => {
    const tokenizer = await loadTokenizer('models/arithmetic/tokenizer.json');
    const example = toolCallExample(task.sample('train', 3), new Rng(3), { callRate: 1, malformedRate: 0 });
    const tokenized = tokenizeExample(tokenizer, example, 0);
    const [call, env, answer] = example.parts!.map((part) => tokenizer.encode(part.text));
    expect(tokenized.completion).toEqual([...call, ...env, ...answer, 0]);
    expect(tokenized.env).toEqual(env.map((_, i) => call.length + i));
    const batch = sftBatch([tokenized], 1, 1024);
    const trained = Array.from(batch.lossMask, (m, t) => (m === 1 ? t + 1 : -1)).filter((t) => t >= 0);
    const start = tokenized.prompt.length;
    expect(trained).toEqual([...call.map((_, i) => start + i), ...[...answer, 0].map((_, i) => start + call.length + env.length + i)]);
  });
});
