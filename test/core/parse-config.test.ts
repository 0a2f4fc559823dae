import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { LudusError } from '../../core/errors.ts';
import { parseConfig } from '../../core/parse-config.ts';
import { LrScheduleSchema } from '../../native/train/lr-schedule.ts';

/** A config shaped like the training config: a strict top level, nested objects that are not declared strict. */
const Schema = z
  .object({
    steps: z.number().int().positive().default(10),
    groupSize: z.number().int().default(8),
    schedule: LrScheduleSchema.prefault({ lr: 1e-3 }),
    game: z.object({ shareBand: z.tuple([z.number(), z.number()]).optional() }).default({}),
    stages: z.array(z.object({ name: z.string() })).default([]),
    handoff: z.union([z.object({ kind: z.literal('word'), p: z.number() }), z.object({ kind: z.literal('step'), every: z.number() })]).optional(),
    extra: z.record(z.string(), z.unknown()).default({}),
    model: z.looseObject({ hidden_size: z.number().optional() }).default({}),
  })
  .strict();

function refusal(input: unknown): LudusError {
  try {
    parseConfig(Schema, input, 'run.json');
  } catch (error) {
    expect(LudusError.is(error, 'CONFIG_INVALID')).toBe(true);
    return error as LudusError;
  }
  return expect.unreachable(`accepted ${JSON.stringify(input)}`);
}

describe('parseConfig', () => {
  describe('having an unknown key at the top level', () => {
    it('should name the key, and the field of that name at another level', () => {
      expect(refusal({ lr: 1e-4 }).message).toBe('[CONFIG_INVALID] run.json: unknown field "lr" (did you mean "schedule.lr"?)');
    });

    it('should suggest the closest field for a typo', () => {
      expect(refusal({ groupsize: 4 }).message).toContain('unknown field "groupsize" (did you mean "groupSize"?)');
      expect(refusal({ stepz: 4 }).message).toContain('unknown field "stepz" (did you mean "steps"?)');
    });

    it('should suggest nothing for a key like no field', () => {
      expect(refusal({ zebra: 1 }).message).toBe('[CONFIG_INVALID] run.json: unknown field "zebra"');
    });

    it('should refuse keys every object inherits (__proto__, constructor), as JSON.parse makes them, at any level', () => {
      expect(refusal(JSON.parse('{"__proto__": {"x": 1}}')).message).toContain('unknown field "__proto__"');
      expect(refusal(JSON.parse('{"constructor": 5}')).message).toContain('unknown field "constructor"');
      expect(refusal(JSON.parse('{"game": {"toString": 1}}')).message).toContain('unknown field "game.toString"');
    });
  });

  describe('having an unknown key in a nested object the schema does not declare strict', () => {
    it('should refuse it by its dotted path, with the field it abbreviates', () => {
      expect(refusal({ schedule: { lr: 1e-3, warmup: 5 } }).message).toContain('unknown field "schedule.warmup" (did you mean "schedule.warmupSteps"?)');
      expect(refusal({ game: { shareband: [0, 1] } }).message).toContain('unknown field "game.shareband" (did you mean "game.shareBand"?)');
      expect(refusal({ stages: [{ name: 'a' }, { name: 'b', nmae: 'c' }] }).message).toContain('unknown field "stages.1.nmae" (did you mean "stages.1.name"?)');
    });

    it('should refuse one inside a union, suggesting from its options', () => {
      expect(refusal({ handoff: { kind: 'step', evry: 2 } }).message).toContain('unknown field "handoff.evry" (did you mean "handoff.every"?)');
    });
  });

  describe('having keys inside a record or an object that takes any key', () => {
    it('should accept them', () => {
      const parsed = parseConfig(Schema, { extra: { anything: 1 }, model: { hidden_size: 8, rope_scaling: null } }, 'run.json');
      expect(parsed.extra).toEqual({ anything: 1 });
      expect(parsed.model).toMatchObject({ hidden_size: 8, rope_scaling: null });
    });
  });

  describe('having a known field of the wrong type or out of range', () => {
    it('should name the field, what was given and what it expects, in words', () => {
      expect(refusal({ schedule: { lr: -1 } }).message).toMatch(/run\.json: field "schedule\.lr": given -1 \(a number\), expected a number [>≥] 0$/);
      expect(refusal({ steps: 'ten' }).message).toBe('[CONFIG_INVALID] run.json: field "steps": given "ten" (a string), expected a number');
      expect(refusal({ steps: 'ten' }).message).not.toMatch(/Invalid input|received/);
    });
  });
});
