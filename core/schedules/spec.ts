import { z } from 'zod';
import { parseConfig } from '../parse-config.ts';
import { soloSchedule, type AuthorSchedule } from './author-schedule.ts';
import { STEP_HANDOFF_DEFAULT_P, stepHandoff } from './step-handoff.ts';
import { wordHandoff } from './word-handoff.ts';

const authorIndex = z.number().int().min(0);

const SoloSpecSchema = z.strictObject({
  kind: z.literal('solo'),
  author: authorIndex.optional(),
});

const WordSpecSchema = z.strictObject({
  kind: z.literal('word'),
  /** Probability of drawing the senior at each redraw. */
  p: z.number().min(0).max(1),
  /** Subword-span cap: redraw after K consecutive non-boundary tokens. */
  K: z.number().int().min(0),
  seed: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  /** Word-initial token ids: emitting one triggers a redraw. */
  boundary: z.array(z.number().int().min(0)).readonly(),
  senior: authorIndex.optional(),
  junior: authorIndex.optional(),
});

const StepSpecSchema = z.strictObject({
  kind: z.literal('step'),
  /** `alternate`: strict round-robin at every step end; `bernoulli`: a Bernoulli(p) redraw at every step end. */
  mode: z.enum(['alternate', 'bernoulli']),
  /** Probability of drawing author 0 at each draw; 0.5 when absent. */
  p: z.number().min(0).max(1).optional(),
  seed: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  /** Step-ending token ids (those whose text contains "\n\n"): emitting one hands off. */
  boundary: z.array(z.number().int().min(0)).readonly(),
  /** Author of the first token; Bernoulli(p) when absent. */
  first: z.union([z.literal(0), z.literal(1)]).optional(),
});

/** A schedule as plain data: what a config names, what crosses to a worker, what a trajectory records. */
export const ScheduleSpecSchema = z.discriminatedUnion('kind', [SoloSpecSchema, WordSpecSchema, StepSpecSchema]);

export type ScheduleSpec = z.infer<typeof ScheduleSpecSchema>;
export type SoloScheduleSpec = z.infer<typeof SoloSpecSchema>;
export type WordScheduleSpec = z.infer<typeof WordSpecSchema>;
export type StepScheduleSpec = z.infer<typeof StepSpecSchema>;

export function parseScheduleSpec(input: unknown, where = 'schedule'): ScheduleSpec {
  return parseConfig(ScheduleSpecSchema, input, where);
}

/** A fresh, stateful schedule for one generation; build one per generate call. */
export function buildSchedule(spec: ScheduleSpec): AuthorSchedule {
  switch (spec.kind) {
    case 'solo':
      return soloSchedule(spec.author ?? 0);
    case 'word':
      return wordHandoff(new Set(spec.boundary), { p: spec.p, K: spec.K, seed: spec.seed, senior: spec.senior, junior: spec.junior });
    case 'step':
      return stepHandoff(new Set(spec.boundary), { mode: spec.mode, p: spec.p, seed: spec.seed, first: spec.first });
  }
}

/** Hash of a boundary set: order and duplicates do not matter. */
export function boundaryHash(boundary: readonly number[]): string {
  const sorted = Int32Array.from(new Set(boundary)).sort();
  const hash = new Hash64();
  hash.word(sorted.length);
  for (const id of sorted) hash.word(id);
  return hash.hex();
}

/**
 * Stable identity of what a spec builds: defaults are filled in and the boundary set enters by its hash, so specs
 * that schedule identically hash identically. Recorded with every trajectory.
 */
export function scheduleHash(spec: ScheduleSpec): string {
  const canonical = canonicalSchedule(spec);
  const hash = new Hash64();
  for (let i = 0; i < canonical.length; i++) hash.word(canonical.charCodeAt(i));
  return hash.hex();
}

function canonicalSchedule(spec: ScheduleSpec): string {
  switch (spec.kind) {
    case 'solo':
      return `solo|author=${spec.author ?? 0}`;
    case 'word':
      return `word|p=${spec.p}|K=${spec.K}|seed=${spec.seed}|senior=${spec.senior ?? 0}|junior=${spec.junior ?? 1}|boundary=${boundaryHash(spec.boundary)}`;
    case 'step':
      return `step|mode=${spec.mode}|p=${spec.p ?? STEP_HANDOFF_DEFAULT_P}|seed=${spec.seed}|first=${spec.first ?? 'drawn'}|boundary=${boundaryHash(spec.boundary)}`;
  }
}

/** Two independent 32-bit FNV-1a lanes over 32-bit words, finished with a murmur3 mix: 64 bits, pure JS. */
class Hash64 {
  private a = 0x811c9dc5;
  private b = 0x01000193 ^ 0x9e3779b9;

  word(value: number): void {
    for (let shift = 0; shift < 32; shift += 8) {
      const byte = (value >>> shift) & 0xff;
      this.a = Math.imul(this.a ^ byte, 0x01000193) >>> 0;
      this.b = Math.imul(this.b ^ byte, 0x01000193 + 0x100) >>> 0;
    }
  }

  hex(): string {
    return [mix32(this.a), mix32(this.b)].map((x) => x.toString(16).padStart(8, '0')).join('');
  }
}

function mix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}
