import { deriveSeed } from '../../core/rng.ts';

/** Separate streams so the data, the sampler and the schedule never share coins. */
const STREAM = { generation: 1, schedule: 2, validationGeneration: 3, validationSchedule: 4, finalGeneration: 5, finalSchedule: 6, fixedGeneration: 8, fixedSchedule: 9 } as const;

export interface MatchSeeds {
  /** Row r of the generation batch samples from an RNG seeded by (generation, r). */
  readonly generation: number;
  /** Seed of the schedule spec: row r's handoff coins come from (schedule, r). */
  readonly schedule: number;
}

/** The seeds of an optimizer step's matches: a pure function of (run seed, step), so a seed replays its matches. */
export function trainingSeeds(runSeed: number, step: number): MatchSeeds {
  return { generation: deriveSeed(runSeed, step, STREAM.generation), schedule: deriveSeed(runSeed, step, STREAM.schedule) };
}

/** The seeds of the end-of-run comparison: the same for the trained policies and their starting point. */
export function finalSeeds(runSeed: number): MatchSeeds {
  return { generation: deriveSeed(runSeed, STREAM.finalGeneration), schedule: deriveSeed(runSeed, STREAM.finalSchedule) };
}

/** The seeds of the matches against one fixed opponent in one seat during training: the same at every evaluation, so they pair across steps. */
export function fixedOpponentSeeds(runSeed: number, opponent: number, seat: number): MatchSeeds {
  return { generation: deriveSeed(runSeed, opponent, seat, STREAM.fixedGeneration), schedule: deriveSeed(runSeed, opponent, seat, STREAM.fixedSchedule) };
}

export function validationSeeds(runSeed: number, step: number): MatchSeeds {
  return { generation: deriveSeed(runSeed, step, STREAM.validationGeneration), schedule: deriveSeed(runSeed, step, STREAM.validationSchedule) };
}

/** A sequential match's own seed: its turns' samples derive from it, wherever the match sits in a batch. */
export function matchSeed(seeds: MatchSeeds, index: number): number {
  return deriveSeed(seeds.generation, index);
}

/** The sampling seed of one turn of a sequential match. */
export function turnSeed(match: number, turn: number): number {
  return deriveSeed(match, turn);
}
