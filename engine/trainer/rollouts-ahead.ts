import { fail } from '../../core/errors.ts';
import type { MatchSeeds } from '../match/match-seeds.ts';
import type { PlayedMatch } from '../match/played-match.ts';
import type { TrainConfig } from './train-config.ts';

/** A step's rollouts as sampling started them: who sat where, the seeds, and the matches to come. */
export interface SampledStep<Rotation> {
  readonly rotation: Rotation;
  readonly seeds: MatchSeeds;
  readonly matches: Promise<PlayedMatch[]>;
}

/** Refuses `rolloutsAhead` where sampling ahead would read weights while they change, naming why. */
export function checkRolloutsAhead(config: TrainConfig): void {
  if (config.rolloutsAhead === 0) return;
  if (!config.rolloutServers) {
    fail('CONFIG_INVALID', 'rolloutsAhead: the in-process decoders read the very weights the learner updates, so rollouts cannot run ahead of it here; give rolloutServers, or set 0', { field: 'rolloutsAhead' });
  }
  if (config.rolloutServers.sync === 'full') {
    fail('CONFIG_INVALID', 'rolloutsAhead: rolloutServers.sync "full" replaces the served weights under the requests still sampling by the previous version; use sync "adapter", or set 0', { field: 'rolloutsAhead' });
  }
}

/**
 * The rollouts sampled ahead of learning: up to `ahead` steps after the one learning now, started as soon as that
 * step's own rollouts are in, so they sample while it learns. None is started past a step that ends with a checkpoint,
 * whose resume must sample the next step afresh from the checkpointed weights.
 */
export class RolloutsAhead<Rotation> {
  private readonly queue: SampledStep<Rotation>[] = [];

  constructor(
    private readonly ahead: number,
    /** Starts sampling step `step` (0-based) from data cursor `cursor`. */
    private readonly sample: (step: number, cursor: number) => SampledStep<Rotation>,
    /** Whether the step after `step` (0-based) ends with a checkpoint. */
    private readonly savesAfter: (step: number) => boolean,
  ) {}

  /** Step `step`'s rollouts: sampled ahead, or started now. */
  take(step: number, cursor: number): SampledStep<Rotation> {
    return this.queue.shift() ?? this.sample(step, cursor);
  }

  /** Starts the steps after `step` (0-based, its rollouts in) up to `ahead`, before `last` and no checkpoint between. */
  fill(step: number, cursor: number, perStep: number, last: number): void {
    for (let j = 1; j <= this.ahead; j++) {
      if (step + j >= last || this.savesAfter(step + j - 1)) return;
      if (j > this.queue.length) this.queue.push(this.sample(step + j, cursor + j * perStep));
    }
  }

  /** Waits out the rollouts still sampling (a run ending early), their failures included. */
  async drain(): Promise<void> {
    await Promise.allSettled(this.queue.splice(0).map((sampled) => sampled.matches));
  }
}

/**
 * Refuses rows of `policy` sampled more than `ahead` versions before `current` (TRAJECTORY_INVALID): each turn
 * records the version of each of its authors when it was sampled.
 */
export function checkRowAges(matches: readonly PlayedMatch[], seats: Readonly<Record<string, string>>, policy: string, current: number, ahead: number): void {
  for (const match of matches) {
    for (const turn of match.turns) {
      turn.authorRoles.forEach((role, i) => {
        const version = turn.origin.versions[i];
        if (seats[role] === policy && current - version > ahead) {
          fail('TRAJECTORY_INVALID', `match ${match.matchId}: a turn of "${policy}" (as ${role}) was sampled by version ${version}, ${current - version} behind the learner's ${current}, more than rolloutsAhead ${ahead} allows`, { policy, version, current });
        }
      });
    }
  }
}
