import { describe, expect, it } from 'vitest';
import type { Problem } from '../../../core/tasks/task.ts';
import type { Arena } from '../../../engine/match/arena.ts';
import { playMatches } from '../../../engine/match/play-matches.ts';
import type { MatchRuntime, RolloutCall } from '../../../engine/match/runtime.ts';
import { kuhnPokerGame } from '../../../games/kuhn-poker.ts';
import { ticTacToeGame } from '../../../games/tictactoe.ts';
import { dealsTask } from '../../../plugins/tasks/deals/deals-task.ts';
import { toolUse } from '../../../core/tools/tool-use.ts';
import { calcTool } from '../../../plugins/tools/calc.ts';

/** Characters as token ids; id 0 is the stop token. */
const chars = { encode: (text: string) => [...text].map((c) => c.charCodeAt(0)), decode: (ids: readonly number[]) => String.fromCharCode(...ids.filter((id) => id > 0)) };

/**
 * A runtime whose "model" answers each prompt by a rule over its text (per policy), recording every prompt it was
 * given and every call's row count: the match engine's behaviour, with no model in the way.
 */
function scriptedRuntime(answer: (policy: string, prompt: string) => string, rows = 64) {
  const prompts: { policy: string; prompt: string }[] = [];
  const calls: number[] = [];
  const runtime: MatchRuntime = {
    rows,
    maxLen: 4096,
    generate: async (call: RolloutCall) => {
      calls.push(call.prompts.length);
      const rollouts = call.prompts.map((ids, row) => {
        const policy = call.policies[call.rowPolicies?.[row] ?? 0];
        const prompt = chars.decode(ids);
        prompts.push({ policy, prompt });
        const text = answer(policy, prompt);
        // An answer that ends with one of the row's stop strings stops there, as the decoder stops a row.
        const stopped = call.stopStrings?.[row]?.some((stop) => text.endsWith(stop)) ?? false;
        const tokens = stopped ? chars.encode(text) : [...chars.encode(text), 0];
        return { prompt: [...ids], tokens, authors: tokens.map(() => 0), logprobs: tokens.map(() => -0.5), finish: stopped ? ('stop-sequence' as const) : ('stop' as const) };
      });
      return { rollouts, versions: call.policies.map(() => 0) };
    },
    release: async () => {},
  };
  return { runtime, prompts, calls };
}

function arenaOf(game: ReturnType<typeof ticTacToeGame> | ReturnType<typeof kuhnPokerGame>, runtime: MatchRuntime): Arena<string> {
  return {
    game,
    runtime,
    tokenizer: { ...chars, vocabSize: 65536, hash: 'chars', json: {}, vocab: new Map(), config: {}, source: 'test' },
    wordBoundary: [],
    stepBoundary: [],
    stopTokens: [0],
    sampling: { temperature: 1, topP: 1, maxNewTokens: 8 },
    chatTemplate: 'off',
    encodePrompt: chars.encode,
    encodeProblem: () => [],
  } as unknown as Arena<string>;
}

const firstLegal = (prompt: string) => /Legal moves: ([^,\n]+)/.exec(prompt)![1];
const deals = (n: number): Problem[] => dealsTask().problems('train', n) as unknown as Problem[];

describe('world matches in the match engine', () => {
  it('should play matches of different lengths in one batch, each round decoding every waiting turn together', async () => {
    const game = ticTacToeGame({});
    // A policy that always takes the first free cell wins as X in 7 moves; one that writes nonsense on its second
    // move forfeits at move 4: two lengths in one batch.
    const { runtime, calls } = scriptedRuntime((_policy, prompt) => (prompt.includes('You are O') && /O/.test(prompt.split('\n').slice(1, 4).join('')) ? 'pass' : firstLegal(prompt)));
    const arena = arenaOf(game, runtime);
    const matches = await playMatches(arena, { problems: deals(3), copies: 2, seats: { first: 'player', second: 'player' }, seeds: { generation: 5, schedule: 6 }, label: 'step-0' });
    expect(matches).toHaveLength(6);
    for (const match of matches) {
      expect(match.turns.map((t) => t.world?.verdict)).toEqual(['legal', 'legal', 'legal', 'unparseable']);
      expect(match.rewards.outcome).toEqual({ first: 0.5, second: -1.5 });
      expect(match.rewards.labels?.second).toMatchObject({ forfeit: 1, illegal: 1 });
    }
    expect(calls).toEqual([6, 6, 6, 6]);
  });

  it('should seat reference opponents by `scripted:<name>` and decode only the model seats', async () => {
    const game = ticTacToeGame({});
    const { runtime, prompts } = scriptedRuntime((_policy, prompt) => firstLegal(prompt));
    const matches = await playMatches(arenaOf(game, runtime), { problems: deals(4), copies: 1, seats: { first: 'player', second: 'scripted:minimax' }, seeds: { generation: 1, schedule: 2 }, label: 'eval' });
    for (const match of matches) {
      expect(match.rewards.outcome.second).toBeGreaterThanOrEqual(0);
      expect(match.turns.filter((t) => t.role === 'second').every((t) => t.tokens.length === 0 && t.world?.verdict === 'legal')).toBe(true);
    }
    expect(prompts.every((p) => p.prompt.includes('You are X'))).toBe(true);
  });

  it("should never put one player's card in the other's prompt", async () => {
    const game = kuhnPokerGame({ play: 'two-policy' });
    const { runtime, prompts } = scriptedRuntime((_policy, prompt) => (prompt.includes('check, bet') ? 'bet' : 'call'));
    const matches = await playMatches(arenaOf(game, runtime), { problems: deals(12), copies: 1, seats: { first: 'first', second: 'second' }, seeds: { generation: 3, schedule: 4 }, label: 'step-0' });
    const names = ['J', 'Q', 'K'];
    for (const match of matches) {
      const cards = /Your card: (.)/.exec(chars.decode(match.turns[0].promptIds))![1];
      const other = /Your card: (.)/.exec(chars.decode(match.turns[1].promptIds))![1];
      expect(cards).not.toBe(other);
      for (const turn of match.turns) {
        const prompt = chars.decode(turn.promptIds);
        const own = /Your card: (.)/.exec(prompt)![1];
        const withoutRules = prompt.replace('J < Q < K', '');
        for (const card of names.filter((c) => c !== own)) expect(withoutRules).not.toMatch(new RegExp(`\\b${card}\\b`));
      }
      expect(Math.abs(match.rewards.outcome.first)).toBe(2);
    }
    expect(new Set(prompts.map((p) => p.policy))).toEqual(new Set(['first', 'second']));
  });
});

describe('a world game whose players may call tools', () => {
  it('should answer a call inside the move and read the move from what the player wrote after the result', async () => {
    const base = ticTacToeGame({ moveTokens: 64 });
    if (base.protocol.family !== 'world') throw new Error('not a world game');
    const game = { ...base, protocol: { ...base.protocol, tools: toolUse([calcTool]) } } as typeof base;
    // Each move first asks the calculator 1+1 (a "1" in the call, a "2" in its result), then names the first free cell:
    // were the move read from the whole turn, every move would be cell 1.
    const { runtime } = scriptedRuntime((_, prompt) => {
      if (!prompt.includes('</tool>', prompt.lastIndexOf('Legal moves'))) return '<tool name="calc">1+1</tool>';
      return ` ${firstLegal(prompt.slice(0, prompt.indexOf('<tool')))}`;
    });
    const [match] = await playMatches(arenaOf(game, runtime), { problems: deals(1), copies: 1, seats: { first: 'player', second: 'player' }, seeds: { generation: 1, schedule: 2 }, label: 'tools' });
    const moves = match.turns.map((turn) => turn.world?.move);
    expect(moves.slice(0, 3)).toEqual(['1', '2', '3']);
    for (const turn of match.turns) {
      expect(turn.authorRoles).toContain('env');
      expect(turn.toolCalls).toEqual([expect.objectContaining({ tool: 'calc' })]);
      expect(turn.text).toContain('<result>2</result>');
    }
  });
});
