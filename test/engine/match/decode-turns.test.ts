import { describe, expect, it } from 'vitest';
import { arenaFor } from '../../../engine/match/arena.ts';
import { tangoGame } from '../../../games/tango.ts';
import type { TangoRole } from '../../../plugins/rewards/tango-reward.ts';
import { gradeMath } from '../../../plugins/graders/math/grade-math.ts';
import { decodeTurns, type TurnRequest } from '../../../engine/match/decode-turns.ts';
import type { MatchRuntime, RolloutCall } from '../../../engine/match/runtime.ts';
import { loadTokenizer } from '../../../plugins/tokenizers/hf-tokenizer.ts';

/** A runtime that writes one token per row and records every call it was given. */
function recordingRuntime(calls: RolloutCall[]): MatchRuntime {
  return {
    rows: 8,
    maxLen: 64,
    async generate(call) {
      calls.push(call);
      return { rollouts: call.prompts.map((prompt) => ({ prompt: [...prompt], tokens: [5], authors: [0], logprobs: [-0.5], finish: 'length' as const })), versions: call.policies.map(() => 0) };
    },
    async release() {},
  };
}

describe('decodeTurns', () => {
  const request = (role: TangoRole, policy: string, i: number): TurnRequest<TangoRole> => ({ matchId: `m${i}`, turn: role === 'generator' ? 0 : 1, role, policy, promptIds: [1, 2], maxTokens: 4, seed: i });

  it("should decode each role's turns at its own temperature where the arena gives one, and the rest at the arena's", async () => {
    const tokenizer = await loadTokenizer('models/arithmetic-judge/tokenizer.json');
    const calls: RolloutCall[] = [];
    const game = tangoGame(undefined, gradeMath);
    const arena = arenaFor(game, recordingRuntime(calls), tokenizer, [0], { temperature: 1, topP: 1, maxNewTokens: 0, roleTemperatures: { verifier: 0 } });
    // One policy plays both roles here, so only the temperature keeps the rows apart.
    const requests = [request('generator', 'p', 0), request('verifier', 'p', 1), request('generator', 'p', 2), request('verifier', 'p', 3)];
    const played = await decodeTurns(arena, requests);
    expect(played.map((turn) => turn.role)).toEqual(['generator', 'verifier', 'generator', 'verifier']);
    expect(calls.map((call) => [call.sampling.temperature, call.rowSeeds])).toEqual([
      [1, [0, 2]],
      [0, [1, 3]],
    ]);
  });

  it("should put one policy's turns in one call when no role has a temperature of its own", async () => {
    const tokenizer = await loadTokenizer('models/arithmetic-judge/tokenizer.json');
    const calls: RolloutCall[] = [];
    const arena = arenaFor(tangoGame(undefined, gradeMath), recordingRuntime(calls), tokenizer, [0], { temperature: 0.7, topP: 1, maxNewTokens: 0 });
    await decodeTurns(arena, [request('generator', 'p', 0), request('verifier', 'p', 1)]);
    expect(calls.map((call) => [call.sampling.temperature, call.rowSeeds])).toEqual([[0.7, [0, 1]]]);
  });
});
