import { EventEmitter } from 'eventemitter3';
import { describe, expect, it } from 'vitest';
import { sequencer, type HandoffEvent, type LudusEmitter, type LudusEvent } from '../../core/events.ts';

describe('sequencer', () => {
  describe('having events from several matches', () => {
    it('should number them in the order given, from 0, one stream across matches', () => {
      const stamp = sequencer();
      const events = [
        stamp({ type: 'match-start', matchId: 'a', game: 'tandem', seed: 1, seats: { senior: 'p0', junior: 'base' } }),
        stamp({ type: 'match-start', matchId: 'b', game: 'tandem', seed: 2, seats: { senior: 'p0', junior: 'base' } }),
        stamp({ type: 'handoff', matchId: 'a', turn: 0, position: 4, from: 'senior', to: 'junior' }),
        stamp({ type: 'train-step', step: 0, trains: ['p0'], metrics: { 'policy/p0/loss': 0.1 } }),
      ];
      expect(events.map((event) => event.seq)).toEqual([0, 1, 2, 3]);
      expect(events[2]).toEqual({ type: 'handoff', matchId: 'a', turn: 0, position: 4, from: 'senior', to: 'junior', seq: 2 });
    });
  });

  describe('having a start', () => {
    it('should continue from it (a resumed stream)', () => {
      expect(sequencer(41)({ type: 'validation', step: 1, role: 'senior', accuracy: 0.5, answerPresent: 1 }).seq).toBe(41);
    });
  });
});

describe('LudusEmitter', () => {
  describe('having typed listeners', () => {
    it('should deliver each event to the listeners of its type and to `event`', () => {
      const emitter: LudusEmitter = new EventEmitter();
      const handoffs: HandoffEvent[] = [];
      const all: LudusEvent[] = [];
      emitter.on('handoff', (event) => handoffs.push(event));
      emitter.on('event', (event) => all.push(event));
      const handoff: HandoffEvent = { type: 'handoff', seq: 0, matchId: 'a', turn: 0, position: 3, from: 'junior', to: 'senior' };
      emitter.emit('handoff', handoff);
      emitter.emit('event', handoff);
      expect(handoffs).toEqual([handoff]);
      expect(all).toEqual([handoff]);
    });

    it('should not typecheck an event emitted under another type\'s name', () => {
      const emitter: LudusEmitter = new EventEmitter();
      const verdict: LudusEvent = { type: 'verdict', seq: 0, matchId: 'a', role: 'generator', answerPresent: true, correct: false, judge: 'math' };
      // @ts-expect-error a verdict is not a handoff
      emitter.emit('handoff', verdict);
      expect(emitter.listenerCount('handoff')).toBe(0);
    });
  });
});
