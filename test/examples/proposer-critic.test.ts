import { EventEmitter } from 'eventemitter3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LudusEmitter, LudusEvent } from '../../core/events.ts';
import type { MatchState } from '../../core/game/match-state.ts';
import type { Problem } from '../../core/tasks/task.ts';
import { arenaFor, type Arena } from '../../engine/match/arena.ts';
import { DecoderPool } from '../../engine/match/decoder-pool.ts';
import { EventStream } from '../../engine/match/event-stream.ts';
import { MatchBroadcast, tokenTexts } from '../../engine/match/match-events.ts';
import { playMatches } from '../../engine/match/play-matches.ts';
import type { PlayedMatch } from '../../engine/match/played-match.ts';
import { PolicyPool } from '../../engine/policies/policy-pool.ts';
import { proposerCritic, workingOf } from '../../examples/proposer-critic/proposer-critic.ts';
import { generate } from '../../native/runtime/generate.ts';
import { gradeMath } from '../../plugins/graders/math/grade-math.ts';
import { taskByName } from '../../plugins/tasks/registry.ts';

type Role = 'proposer' | 'critic';

const DRAFT = 'We add 12 and 30.\n\n12 + 30 = 42.\n\nThe answer is \\boxed{42}.';
const game = proposerCritic(gradeMath);

const midMatch = (finished: boolean): MatchState<Role, Problem> => ({
  matchId: 'm',
  seed: 0,
  problem: { id: 'p', question: 'What is 12 + 30?', instruction: '', prompt: 'Question: What is 12 + 30?\nAnswer:\n', answer: '42', solution: '', steps: [], meta: {} },
  transcript: [{ turn: 0, role: 'proposer', tokens: [1, 2, 3], text: DRAFT }],
  finished,
});

describe('proposerCritic (a two-role sequential game in examples/)', () => {
  describe('having a draft that boxes its answer', () => {
    it('should show the critic only its working while the match runs', () => {
      expect(game.view(midMatch(false), 'critic').transcript[0]).toMatchObject({ text: 'We add 12 and 30.\n\n12 + 30 = 42.', tokens: [] });
    });

    it('should show the proposer and spectators the whole draft, and the critic too once the match is over', () => {
      expect(game.view(midMatch(false), 'proposer').transcript[0].text).toBe(DRAFT);
      expect(game.view(midMatch(false), null).transcript[0].text).toBe(DRAFT);
      expect(game.view(midMatch(true), 'critic').transcript[0].text).toBe(DRAFT);
    });

    it('should prompt the critic with the question and the working, ready for its next step', () => {
      const [, criticTurn] = game.protocol.family === 'sequential' ? game.protocol.turns : [];
      const seen = game.view(midMatch(false), 'critic');
      expect(criticTurn.template(seen.transcript, seen.problem)).toBe('Question: What is 12 + 30?\nAnswer:\nWe add 12 and 30.\n\n12 + 30 = 42.\n\n');
    });
  });

  describe('having six problems played by the match engine on the shipped base, four rows at a time, alice proposing and bob criticising', () => {
    let arena: Arena<Role>;
    let decoders: DecoderPool;
    let matches: PlayedMatch<Role>[];
    const events: LudusEvent[] = [];

    beforeAll(async () => {
      const pool = await PolicyPool.load(
        ['alice', 'bob'].map((name) => ({ name, init: 'default', trainable: false })),
        { task: 'arithmetic' },
      );
      decoders = new DecoderPool(pool, { rows: 4, maxLen: pool.policy('alice').config.maxPositionEmbeddings, threads: 1 });
      const stopTokens = pool.policy('alice').config.eosTokenIds;
      arena = arenaFor(game, decoders, pool.tokenizer, stopTokens, { temperature: 0.6, topP: 1, maxNewTokens: 0 });
      const emitter: LudusEmitter = new EventEmitter();
      emitter.on('event', (event) => events.push(event));
      const broadcast = new MatchBroadcast(new EventStream(emitter), game.id, tokenTexts(pool.tokenizer, stopTokens));
      const problems = (await taskByName('arithmetic')).problems('test', 6);
      matches = await playMatches(arena, { problems, copies: 1, seats: game.rotation.at(0).seats, seeds: { generation: 7, schedule: 8 }, label: 'pc', broadcast });
    }, 120_000);

    afterAll(async () => decoders?.release());

    it('should play a draft then a check in every match, the check prompted without the draft answer', () => {
      expect(matches).toHaveLength(6);
      for (const match of matches) {
        expect(match.seats).toEqual({ proposer: 'alice', critic: 'bob' });
        expect(match.turns.map((turn) => turn.role)).toEqual(['proposer', 'critic']);
        const [draft, check] = match.turns;
        expect(arena.tokenizer.decode(check.promptIds)).toBe(`${match.problem.prompt}${workingOf(draft.text)}\n\n`);
        expect(draft.logprobs).toHaveLength(draft.tokens.length);
        expect(['stop', 'length']).toContain(check.finish);
      }
    });

    it('should pay each role for its own correct boxed answer, with a grader verdict per turn', () => {
      for (const match of matches) {
        const [draft, check] = match.turns;
        expect(match.rewards.outcome).toEqual({ proposer: Number(gradeMath(match.problem.answer, draft.text).correct), critic: Number(gradeMath(match.problem.answer, check.text).correct) });
        expect(match.rewards.verdicts?.map((v) => [v.role, v.turn])).toEqual([['proposer', 0], ['critic', 1]]);
      }
    });

    it('should number its events, stream every turn token by token and close every match it opened', () => {
      expect(events.map((event) => event.seq)).toEqual(events.map((_, i) => i));
      const count = (type: string) => events.filter((event) => event.type === type).length;
      expect({ starts: count('match-start'), turnStarts: count('turn-start'), turnEnds: count('turn-end'), rewards: count('reward'), ends: count('match-end') }).toEqual({
        starts: 6,
        turnStarts: 12,
        turnEnds: 12,
        rewards: 12,
        ends: 6,
      });
      const [match] = matches;
      const streamed = events.flatMap((event) => (event.type === 'tokens' && event.matchId === match.matchId && event.turn === 1 ? [event] : []));
      expect(streamed.map((event) => event.tokens[0])).toEqual([...match.turns[1].tokens]);
      expect(streamed.every((event) => event.authors[0] === 'critic')).toBe(true);
    });

    it('should replay a turn exactly from its recorded prompt and seed, whatever batch it is played in', async () => {
      const turn = matches[5].turns[1];
      const decoder = await decoders.get(['bob']);
      const [replayed] = await generate(decoder, Array(4).fill(turn.promptIds), {
        maxNewTokens: game.protocol.family === 'sequential' ? game.protocol.turns[1].maxTokens : 0,
        rowSeeds: Array(4).fill(turn.origin.rowSeed),
        seed: 0,
        sampling: { temperature: 0.6, topK: 0, topP: 1 },
        stopTokens: arena.stopTokens,
      });
      expect(replayed.tokens).toEqual(turn.tokens);
    });
  });
});
