import { fail } from '../errors.ts';
import type { ScheduleSpec } from '../schedules/spec.ts';
import { STEP_HANDOFF_DEFAULT_P } from '../schedules/step-handoff.ts';

/** What a co-decoding schedule is built from, match by match. */
export interface ScheduleContext {
  /** Derived from (run seed, match id); the schedule's coins come from it. */
  readonly seed: number;
  /** Word-initial token ids of the shared tokenizer. */
  readonly wordBoundary: readonly number[];
  /** Token ids whose text contains "\n\n": the ends of reasoning steps. */
  readonly stepBoundary: readonly number[];
}

/** Several roles write ONE response token by token; the schedule names the author of each next token. */
export interface CoDecodingProtocol<Role extends string> {
  readonly family: 'co-decoding';
  readonly name: string;
  /** Author index i in the schedule (and in the trajectory) is `authors[i]`. */
  readonly authors: readonly Role[];
  readonly schedule: (context: ScheduleContext) => ScheduleSpec;
  /**
   * Each trainable author's share of a step's co-decoded tokens must lie in [min, max]; outside it the run fails
   * closed (AUTHOR_SHARE_OUT_OF_BAND) instead of quietly training on a collapsed schedule.
   */
  readonly shareBand: ShareBand;
}

export type ShareBand = readonly [min: number, max: number];

/** No band beyond the empty-mask check: an author may write any share of the tokens. */
export const ANY_SHARE: ShareBand = [0, 1];

/** Tandem RL's word-level handoff defaults (§3.3, appendix A.1.2). */
export const WORD_HANDOFF_DEFAULTS = { p: 0.5, K: 32 } as const;

function solo<Role extends string>(role: Role): CoDecodingProtocol<Role> {
  return { family: 'co-decoding', name: 'solo', authors: [role], schedule: () => ({ kind: 'solo' }), shareBand: ANY_SHARE };
}

/** Bernoulli(p) redraw of the author at every word-initial token, with a redraw after K non-boundary tokens. */
function wordHandoff<Role extends string>(options: { senior: Role; junior: Role; p?: number; K?: number; shareBand?: ShareBand }): CoDecodingProtocol<Role> {
  const p = options.p ?? WORD_HANDOFF_DEFAULTS.p;
  const K = options.K ?? WORD_HANDOFF_DEFAULTS.K;
  return {
    family: 'co-decoding',
    name: 'word-handoff',
    authors: [options.senior, options.junior],
    schedule: ({ seed, wordBoundary }) => ({ kind: 'word', p, K, seed, boundary: wordBoundary }),
    shareBand: options.shareBand ?? ANY_SHARE,
  };
}

/**
 * Handoff at reasoning-step ends (`\n\n`): strict alternation or a Bernoulli(p) redraw. The first author is the
 * role named by `first`, or Bernoulli(p) over `authors` (p for `authors[0]`) when absent.
 */
function stepHandoff<Role extends string>(options: {
  authors: readonly [Role, Role];
  mode: 'alternate' | 'bernoulli';
  p?: number;
  first?: Role;
  shareBand?: ShareBand;
}): CoDecodingProtocol<Role> {
  const p = options.p ?? STEP_HANDOFF_DEFAULT_P;
  const first = options.first === undefined ? undefined : options.authors.indexOf(options.first);
  if (first === -1) fail('CONFIG_INVALID', `step handoff: first author "${options.first}" is not one of ${options.authors.join(', ')}`);
  return {
    family: 'co-decoding',
    name: `step-handoff-${options.mode}`,
    authors: [...options.authors],
    schedule: ({ seed, stepBoundary }) => ({
      kind: 'step',
      mode: options.mode,
      p,
      seed,
      boundary: stepBoundary,
      ...(first === undefined ? {} : { first: first as 0 | 1 }),
    }),
    shareBand: options.shareBand ?? ANY_SHARE,
  };
}

/** Named co-decoding presets, as boardgame.io names its turn orders. */
export const CoDecoding = { solo, wordHandoff, stepHandoff } as const;
