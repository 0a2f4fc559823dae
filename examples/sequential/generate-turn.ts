import { soloSchedule } from '../../core/schedules/author-schedule.ts';
import { generate, type Rollout } from '../../native/runtime/generate.ts';
import type { SequentialArena } from './sequential-arena.ts';

/**
 * One whole turn of `role` for every prompt, in one decoder-wide batch: rows past the prompts repeat the first one
 * and are dropped. Row r samples from (seed, r), so a turn replays from its prompt, seed, row and width.
 */
export async function generateTurn<Role extends string>(
  arena: SequentialArena<Role>,
  role: Role,
  prompts: readonly (readonly number[])[],
  maxTokens: number,
  seed: number,
): Promise<Rollout[]> {
  const { decoder } = arena;
  const padded = [...prompts, ...Array.from({ length: decoder.batch - prompts.length }, () => prompts[0])];
  const rollouts = await generate(decoder, padded, {
    maxNewTokens: maxTokens,
    sampling: { temperature: arena.sampling.temperature, topK: 0, topP: arena.sampling.topP },
    seed,
    stopTokens: arena.stopTokens,
    schedule: soloSchedule(arena.seats[role]),
    padToken: arena.stopTokens[0],
  });
  return rollouts.slice(0, prompts.length);
}
