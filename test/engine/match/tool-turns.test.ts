import { EventEmitter } from 'eventemitter3';
import { describe, expect, it } from 'vitest';
import type { LudusEmitter, LudusEvent } from '../../../core/events.ts';
import { EventStream } from '../../../engine/match/event-stream.ts';
import { MatchBroadcast, tokenTexts } from '../../../engine/match/match-events.ts';
import { defineGame } from '../../../core/game/define-game.ts';
import type { Problem } from '../../../core/tasks/task.ts';
import { QWEN3_TOOL_CALL, TOOL_TAG, type ToolCallFormat } from '../../../core/tools/call-formats.ts';
import { toolUse } from '../../../core/tools/tool-use.ts';
import type { Tool } from '../../../core/tools/tool.ts';
import { arenaFor } from '../../../engine/match/arena.ts';
import { decodeTurns, type TurnRequest } from '../../../engine/match/decode-turns.ts';
import type { MatchRuntime, RolloutCall } from '../../../engine/match/runtime.ts';
import { calcTool } from '../../../plugins/tools/calc.ts';
import { loadTokenizer, type TextTokenizer } from '../../../plugins/tokenizers/hf-tokenizer.ts';

const EOS = 0;

/**
 * A runtime whose "policy" writes what `script` says for a row's text so far (the prompt decoded, environment
 * included): encoded, cut after the first token whose text completes one of the row's stop strings, or at its budget;
 * an EOS after text that stopped on nothing. Records every call.
 */
function scriptedRuntime(tokenizer: TextTokenizer, script: (sofar: () => string) => string, calls: RolloutCall[] = [], maxLen = 4096): MatchRuntime {
  return {
    rows: 8,
    maxLen,
    async generate(call) {
      calls.push(call);
      const rollouts = call.prompts.map((prompt, row) => {
        const ids = tokenizer.encode(script(() => tokenizer.decode([...prompt])));
        const budget = call.rowMaxNewTokens?.[row] ?? call.maxNewTokens;
        const stops = call.stopStrings?.[row] ?? [];
        const tokens: number[] = [];
        let finish: 'stop' | 'length' | 'stop-sequence' = 'length';
        for (const id of [...ids, EOS]) {
          if (tokens.length >= budget) break;
          tokens.push(id);
          if (id === EOS) {
            finish = 'stop';
            break;
          }
          if (stops.some((stop) => tokenizer.decode(tokens).includes(stop))) {
            finish = 'stop-sequence';
            break;
          }
        }
        return { prompt: [...prompt], tokens, authors: tokens.map(() => 0), logprobs: tokens.map(() => -0.25), finish };
      });
      // Streamed a step at a time, as the decoder streams: -1 for a row with nothing new at that step.
      for (let t = 0; t < Math.max(0, ...rollouts.map((r) => r.tokens.length)); t++) {
        await call.onStep?.(t, Int32Array.from(rollouts, (r) => r.tokens[t] ?? -1), new Int32Array(rollouts.length));
      }
      return { rollouts, versions: call.policies.map(() => 0) };
    },
    async release() {},
  };
}

const game = defineGame<'solver', Problem>({
  id: 'tools-test',
  roles: ['solver'],
  protocol: { family: 'sequential', name: 'one-turn', turns: [{ role: 'solver', template: (_, problem) => problem.prompt, maxTokens: 64 }] },
  rewards: () => ({ outcome: { solver: 0 } }),
  trainable: ['solver'],
});

async function setup(script: (sofar: () => string) => string, calls: RolloutCall[] = [], maxLen?: number) {
  const tokenizer = await loadTokenizer('models/arithmetic/tokenizer.json');
  const arena = arenaFor(game, scriptedRuntime(tokenizer, script, calls, maxLen), tokenizer, [EOS], { temperature: 1, topP: 1, maxNewTokens: 0 });
  return { tokenizer, arena };
}

const request = (i: number, tools: ReturnType<typeof toolUse>, prompt: number[], maxTokens = 200): TurnRequest<'solver'> => ({ matchId: `m${i}`, turn: 0, role: 'solver', policy: 'p', promptIds: prompt, maxTokens, seed: 100 + i, tools });

/** Answers a call once, then the boxed result it read (the last <result>…</result>), or a guess after an error line. */
const callThenAnswer =
  (call: string, format: ToolCallFormat = TOOL_TAG) =>
  (read: () => string) => {
    const sofar = read();
    if (!sofar.includes(format.close)) return `${call} and more`;
    const results = [...sofar.matchAll(format === TOOL_TAG ? /<result>([\s\S]*?)<\/result>/g : /<tool_response>\n([\s\S]*?)\n<\/tool_response>/g)];
    const result = results.at(-1)?.[1] ?? '';
    return ` The answer is \\boxed{${result.startsWith('error') ? '?' : result}}.`;
  };

describe('turns that may call tools', () => {
  describe('having a well-formed call in the default format', () => {
    it('should stop at the call, append the result as env tokens encoded once, and go on with the same turn', async () => {
      const calls: RolloutCall[] = [];
      const { tokenizer, arena } = await setup(callThenAnswer('<tool name="calc">12*34</tool>'), calls);
      const prompt = tokenizer.encode('Q: 12 times 34?\n');
      const [turn] = await decodeTurns(arena, [request(0, toolUse([calcTool]), prompt)]);
      const env = tokenizer.encode('<result>408</result>');
      expect(turn.authorRoles).toEqual(['solver', 'env']);
      const start = turn.authorIds.indexOf(1);
      expect(turn.tokens.slice(start, start + env.length)).toEqual(env);
      expect(turn.authorIds.filter((a) => a === 1)).toHaveLength(env.length);
      expect(turn.logprobs.slice(start, start + env.length)).toEqual(env.map(() => 0));
      expect(turn.text).toBe('<tool name="calc">12*34</tool><result>408</result> The answer is \\boxed{408}.');
      expect(turn.finish).toBe('stop');
      expect(turn.toolCalls).toEqual([{ tool: 'calc', position: start, envTokens: env.length, ms: expect.any(Number) }]);
      // The second segment continues from the prompt, the call and the result, at a seed derived from the row's.
      expect(calls).toHaveLength(2);
      expect(calls[1].prompts[0]).toEqual([...prompt, ...turn.tokens.slice(0, start + env.length)]);
      expect(calls[0].rowSeeds).toEqual([100]);
      expect(calls[1].rowSeeds?.[0]).not.toBe(100);
      expect(calls[0].stopStrings).toEqual([['</tool>']]);
    });
  });

  describe('having the Qwen3 chat template format', () => {
    it('should read a JSON call and answer inside a tool_response user turn, then reopen the assistant turn', async () => {
      const call = '<tool_call>\n{"name": "calc", "arguments": {"input": "7*6"}}\n</tool_call>';
      const { tokenizer, arena } = await setup(callThenAnswer(call, QWEN3_TOOL_CALL));
      const [turn] = await decodeTurns(arena, [request(0, toolUse([calcTool], { format: QWEN3_TOOL_CALL }), tokenizer.encode('Q\n'))]);
      expect(turn.text).toBe(`${call}<|im_end|>\n<|im_start|>user\n<tool_response>\n42\n</tool_response><|im_end|>\n<|im_start|>assistant\n The answer is \\boxed{42}.`);
      expect(turn.toolCalls?.map((c) => c.code)).toEqual([undefined]);
    });
  });

  describe('having bad calls', () => {
    const hang: Tool = { name: 'hang', description: 'never answers', run: () => new Promise(() => {}), timeoutMs: 150 };
    const boom: Tool = { name: 'boom', description: 'throws', run: () => { throw new Error('kaput'); } };
    const huge: Tool = { name: 'huge', description: 'ten megabytes', run: () => 'x'.repeat(10 * 1024 * 1024), maxResultChars: 1000 };
    const tools = toolUse([calcTool, hang, boom, huge]);

    it.each([
      ['a tool that throws', '<tool name="boom">x</tool>', 'TOOL_FAILED', 'error TOOL_FAILED: boom failed: kaput'],
      ['a tool that hangs', '<tool name="hang">x</tool>', 'TOOL_TIMEOUT', 'error TOOL_TIMEOUT: hang took longer than 150 ms'],
      ['a tool that returns 10 MB', '<tool name="huge">x</tool>', 'TOOL_RESULT_TOO_LARGE', 'error TOOL_RESULT_TOO_LARGE: huge returned 10485760 characters, more than its 1000'],
      ['an unknown tool', '<tool name="abacus">1+1</tool>', 'TOOL_UNKNOWN', 'error TOOL_UNKNOWN: no tool "abacus" (tools: calc, hang, boom, huge)'],
      ['a malformed call', '<tool calc>1+1</tool>', 'TOOL_CALL_MALFORMED', 'error TOOL_CALL_MALFORMED: a call opens as <tool name="NAME">, not "<tool calc>"'],
      ['a calculator given text it cannot read', '<tool name="calc">1 x 1</tool>', 'TOOL_FAILED', 'error TOOL_FAILED: calc failed: "x" is not expected there'],
    ])('should answer %s with a coded error line and let the turn go on', async (_, call, code, line) => {
      const { tokenizer, arena } = await setup(callThenAnswer(call));
      const [turn] = await decodeTurns(arena, [request(0, tools, tokenizer.encode('Q\n'))]);
      expect(turn.toolCalls).toEqual([expect.objectContaining({ code })]);
      expect(turn.text).toBe(`${call}<result>${line}</result> The answer is \\boxed{?}.`);
      expect(turn.finish).toBe('stop');
    });

    it('should keep decoding the other rows while one waits on a hanging tool', async () => {
      const calls: RolloutCall[] = [];
      const script = (sofar: () => string) => (sofar().startsWith('A') ? callThenAnswer('<tool name="hang">x</tool>')(sofar) : callThenAnswer('<tool name="calc">2*3</tool>')(sofar));
      const { tokenizer, arena } = await setup(script, calls);
      const played = await decodeTurns(arena, [request(0, tools, tokenizer.encode('A\n')), request(1, tools, tokenizer.encode('B\n'))]);
      // Both rows start together; B's second segment runs while A's tool still hangs; A rejoins after its timeout.
      expect(calls.map((call) => call.prompts.map((p) => tokenizer.decode(p)[0]))).toEqual([['A', 'B'], ['B'], ['A']]);
      expect(played.map((turn) => turn.toolCalls?.[0].code)).toEqual(['TOOL_TIMEOUT', undefined]);
      expect(played[1].text).toContain('\\boxed{6}');
    });

    it('should count a call opened and never closed as malformed, with nothing run or appended', async () => {
      const { tokenizer, arena } = await setup(() => 'I will call <tool name="calc">1+1 and stop');
      const [turn] = await decodeTurns(arena, [request(0, tools, tokenizer.encode('Q\n'))]);
      expect(turn.authorRoles).toEqual(['solver']);
      expect(turn.toolCalls).toEqual([{ position: turn.tokens.length, envTokens: 0, code: 'TOOL_CALL_MALFORMED', unclosed: true }]);
    });
  });

  describe('having a policy that calls without end', () => {
    it('should answer 1,000 calls within the budgets, then end the turn at the call past its call budget', async () => {
      const calls: RolloutCall[] = [];
      const { tokenizer, arena } = await setup(() => '<tool name="calc">1+1</tool>', calls, 1_000_000);
      const [turn] = await decodeTurns(arena, [request(0, toolUse([calcTool], { maxCalls: 1000 }), tokenizer.encode('Q\n'), 100_000)]);
      expect(turn.toolCalls).toHaveLength(1000);
      expect(turn.toolCalls?.every((call) => call.tool === 'calc' && call.code === undefined)).toBe(true);
      expect(turn.finish).toBe('calls');
      expect(calls).toHaveLength(1001);
      expect(turn.text.split('<result>2</result>')).toHaveLength(1001);
    });

    it('should end the turn at its token budget, which counts the environment tokens', async () => {
      const { tokenizer, arena } = await setup(() => '<tool name="calc">1+1</tool>');
      const [turn] = await decodeTurns(arena, [request(0, toolUse([calcTool], { maxCalls: 1000 }), tokenizer.encode('Q\n'), 60)]);
      expect(turn.tokens.length).toBeLessThanOrEqual(60);
      expect(turn.finish).toBe('length');
      expect(turn.toolCalls!.length).toBeGreaterThan(1);
    });
  });
});

describe('a tool turn watched live', () => {
  it("should stream the policy's tokens and the environment's, each at its position, with a handoff to env and back", async () => {
    const { tokenizer, arena } = await setup(callThenAnswer('<tool name="calc">12*34</tool>'));
    const emitter = new EventEmitter() as unknown as LudusEmitter;
    const events: LudusEvent[] = [];
    emitter.on('event', (event: LudusEvent) => events.push(event));
    const broadcast = new MatchBroadcast(new EventStream(emitter), 'tools-test', tokenTexts(tokenizer, [EOS]));
    const [turn] = await decodeTurns(arena, [request(0, toolUse([calcTool]), tokenizer.encode('Q\n'))], broadcast);
    const streamed: number[] = [];
    const authors: string[] = [];
    for (const event of events) {
      if (event.type !== 'tokens') continue;
      expect(event.position).toBe(streamed.length);
      streamed.push(...event.tokens);
      authors.push(...event.authors);
    }
    expect(streamed).toEqual(turn.tokens);
    expect(authors).toEqual(turn.authorIds.map((a) => turn.authorRoles[a]));
    const start = turn.authorIds.indexOf(1);
    const end = turn.authorIds.lastIndexOf(1) + 1;
    expect(events.filter((e) => e.type === 'handoff').map((e) => e.type === 'handoff' && [e.position, e.from, e.to])).toEqual([
      [start, 'solver', 'env'],
      [end, 'env', 'solver'],
    ]);
    expect(events.filter((e) => e.type === 'turn-start')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'turn-end')).toHaveLength(0);
  });
});
