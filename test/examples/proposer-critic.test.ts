import { EventEmitter } from 'eventemitter3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LudusEmitter, LudusEvent } from '../../core/events.ts';
import type { MatchState } from '../../core/game/match-state.ts';
import { Decoder } from '../../native/runtime/decoder.ts';
import { gradeMath } from '../../plugins/graders/math/grade-math.ts';
import { resolveModelDir } from '../../plugins/policies/default-model.ts';
import { loadPolicy } from '../../plugins/policies/load-policy.ts';
import { taskByName } from '../../plugins/tasks/registry.ts';
import type { Problem } from '../../core/tasks/task.ts';
import { EventStream } from '../../engine/match/event-stream.ts';
import { proposerCritic } from '../../examples/proposer-critic/proposer-critic.ts';
import { workingOf } from '../../examples/proposer-critic/withheld-answer.ts';
import { playSequentialMatches } from '../../examples/sequential/play-sequential-matches.ts';
import { replaySequentialMatch } from '../../examples/sequential/replay-sequential-match.ts';
import type { SequentialArena } from '../../examples/sequential/sequential-arena.ts';
import type { SequentialTranscriptLine } from '../../examples/sequential/sequential-transcript.ts';

type Role = 'proposer' | 'critic';

const DRAFT = 'We add 12 and 30.\n\n12 + 30 = 42.\n\nThe answer is \\boxed{42}.';

const midMatch = (finished: boolean): MatchState<Role, Problem> => ({
  matchId: 'm',
  seed: 0,
  problem: { id: 'p', question: 'What is 12 + 30?', instruction: '', prompt: 'Question: What is 12 + 30?\nAnswer:\n', answer: '42', solution: '', steps: [], meta: {} },
  transcript: [{ turn: 0, role: 'proposer', tokens: [1, 2, 3], text: DRAFT }],
  finished,
});

describe('proposerCritic (a sequential game in examples/)', () => {
  describe('having a draft that boxes its answer', () => {
    it('should show the critic and spectators only its working while the match runs', () => {
      for (const viewer of ['critic', null] as const) {
        expect(proposerCritic.view(midMatch(false), viewer).transcript[0]).toMatchObject({ text: 'We add 12 and 30.\n\n12 + 30 = 42.', tokens: [] });
      }
    });

    it('should show the proposer its own draft, and everyone the whole draft once the match is over', () => {
      expect(proposerCritic.view(midMatch(false), 'proposer').transcript[0].text).toBe(DRAFT);
      expect(proposerCritic.view(midMatch(true), 'critic').transcript[0].text).toBe(DRAFT);
    });

    it('should prompt the critic with the question and the working, ready for its next step', () => {
      const [, criticTurn] = proposerCritic.protocol.family === 'sequential' ? proposerCritic.protocol.turns : [];
      const seen = proposerCritic.view(midMatch(false), 'critic');
      expect(criticTurn.template(seen.transcript, seen.problem)).toBe('Question: What is 12 + 30?\nAnswer:\nWe add 12 and 30.\n\n12 + 30 = 42.\n\n');
    });
  });

  describe('having six problems on the shipped base, four rows at a time', () => {
    let arena: SequentialArena<Role>;
    let lines: SequentialTranscriptLine<Role>[];
    const events: LudusEvent[] = [];

    beforeAll(async () => {
      const { policy, tokenizer } = await loadPolicy(resolveModelDir('default'));
      const decoder = await Decoder.create([policy], { batch: 4, maxLen: policy.config.maxPositionEmbeddings, threads: 1 });
      arena = { game: proposerCritic, decoder, tokenizer: tokenizer!, seats: { proposer: 0, critic: 0 }, stopTokens: policy.config.eosTokenIds, sampling: { temperature: 0.6, topP: 1 } };
      const emitter: LudusEmitter = new EventEmitter();
      emitter.on('event', (event) => events.push(event));
      const task = await taskByName('arithmetic');
      lines = (await playSequentialMatches(arena, task.problems('test', 6), 7, new EventStream(emitter))).map((line) => JSON.parse(JSON.stringify(line)));
    }, 120_000);

    afterAll(async () => arena?.decoder.release());

    it('should play a draft then a check in every match, the check prompted without the draft answer', () => {
      expect(lines).toHaveLength(6);
      for (const line of lines) {
        expect(line.turns.map((turn) => turn.role)).toEqual(['proposer', 'critic']);
        const [draft, check] = line.turns;
        expect(arena.tokenizer.decode(check.promptIds)).toBe(`${line.problem.prompt}${workingOf(draft.text)}\n\n`);
      }
    });

    it('should pay each role for its own correct boxed answer', () => {
      for (const line of lines) {
        const [draft, check] = line.turns;
        expect(line.outcome).toEqual({ proposer: Number(gradeMath(line.problem.answer, draft.text).correct), critic: Number(gradeMath(line.problem.answer, check.text).correct) });
      }
    });

    it('should number its events and close every match it opened', () => {
      expect(events.map((event) => event.seq)).toEqual(events.map((_, i) => i));
      const count = (type: string) => events.filter((event) => event.type === type).length;
      expect({ starts: count('match-start'), turnEnds: count('turn-end'), rewards: count('reward'), ends: count('match-end') }).toEqual({ starts: 6, turnEnds: 12, rewards: 12, ends: 6 });
    });

    it('should replay a match exactly from its transcript line alone', async () => {
      const line = lines[5];
      expect(await replaySequentialMatch(arena, line)).toEqual(line);
    });
  });
});
