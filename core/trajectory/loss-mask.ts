import { fail } from '../errors.ts';
import { authorShare } from './author-share.ts';
import type { Trajectory } from './trajectory.ts';

export interface LossMaskOptions {
  /** Each trainable author's share of the response must lie in [min, max], bounds included. */
  readonly shareBand: readonly [min: number, max: number];
}

export interface LossMask {
  /** Per response token: 1 where a trainable author wrote it, else 0. */
  readonly mask: number[];
  /** Each trainable author's share of the response, in the order asked. */
  readonly shares: readonly { readonly author: number; readonly role: string; readonly share: number }[];
}

/**
 * The tokens that get gradient: those written by the trainable authors. Fails closed: a trainable author with no
 * tokens (MASK_EMPTY) or with a share outside the band (AUTHOR_SHARE_OUT_OF_BAND) is an error naming the match and
 * the share, never a silent fallback to training on every token.
 */
export function lossMask(trajectory: Trajectory, trainableAuthors: readonly number[], options: LossMaskOptions): LossMask {
  const [min, max] = options.shareBand;
  if (!(min >= 0 && min <= max && max <= 1)) fail('CONFIG_INVALID', `loss mask: shareBand [${min}, ${max}] must satisfy 0 ≤ min ≤ max ≤ 1`);
  if (trainableAuthors.length === 0) fail('MASK_EMPTY', `match "${trajectory.matchId}": no trainable author was named`, { matchId: trajectory.matchId });

  const shares = trainableAuthors.map((author) => {
    const role = trajectory.roles[author];
    if (role === undefined) {
      fail('INPUT_INVALID', `match "${trajectory.matchId}": trainable author ${author} is not one of its ${trajectory.roles.length} roles`, { matchId: trajectory.matchId, author });
    }
    const share = authorShare(trajectory, author);
    const details = { matchId: trajectory.matchId, turn: trajectory.turn, author, role, share, band: [min, max] };
    if (share === 0) fail('MASK_EMPTY', `match "${trajectory.matchId}" turn ${trajectory.turn}: trainable role "${role}" wrote none of ${trajectory.authors.length} tokens`, details);
    if (share < min || share > max) {
      fail('AUTHOR_SHARE_OUT_OF_BAND', `match "${trajectory.matchId}" turn ${trajectory.turn}: role "${role}" wrote ${formatShare(share)} of the tokens, outside [${min}, ${max}]`, details);
    }
    return { author, role, share };
  });

  const trainable = new Set(trainableAuthors);
  return { mask: trajectory.authors.map((author) => (trainable.has(author) ? 1 : 0)), shares };
}

function formatShare(share: number): string {
  return `${(share * 100).toFixed(1)}% (${share})`;
}
