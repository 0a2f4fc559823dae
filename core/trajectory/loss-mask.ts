import { fail } from '../errors.ts';
import { authorShare } from './author-share.ts';
import { ENV_AUTHOR, type Trajectory } from './trajectory.ts';

export interface LossMaskOptions {
  /** Each trainable author's share of the tokens must lie in [min, max], bounds included. */
  readonly shareBand: readonly [min: number, max: number];
}

export interface AuthorShare {
  readonly author: number;
  readonly role: string;
  readonly share: number;
}

export interface LossMask {
  /** Per response token: 1 where a trainable author wrote it, else 0. */
  readonly mask: number[];
  /** Each trainable author's share of the response, in the order asked. */
  readonly shares: readonly AuthorShare[];
}

export interface BatchLossMasks {
  readonly masks: LossMask[];
  /** Each trainable author's share of all the batch's response tokens: what the band is checked on. */
  readonly shares: readonly AuthorShare[];
}

/**
 * The tokens that get gradient in one optimizer step's matches: those written by the trainable authors. Fails
 * closed on the batch: a trainable author who wrote no token of any match (MASK_EMPTY) or whose share of all
 * tokens lies outside the band (AUTHOR_SHARE_OUT_OF_BAND) is an error naming the matches and the share, never a
 * silent fallback to training on every token. A single match may fall anywhere — a short tandem answer can be
 * written wholly by the junior by the coins alone; it then trains nothing but still counts in its group's
 * advantage baseline, as in the paper. The environment's tokens (author ENV_AUTHOR: a tool's result or error line) are
 * never trained: naming them trainable is an error, and every mask holds 0 on them whatever else it holds.
 */
export function batchLossMasks(trajectories: readonly Trajectory[], trainableAuthors: readonly number[], options: LossMaskOptions): BatchLossMasks {
  const [min, max] = options.shareBand;
  if (!(min >= 0 && min <= max && max <= 1)) fail('CONFIG_INVALID', `loss mask: shareBand [${min}, ${max}] must satisfy 0 ≤ min ≤ max ≤ 1`);
  if (trajectories.length === 0) fail('INPUT_INVALID', 'loss mask: no matches');
  const where = trajectories.length === 1 ? `match "${trajectories[0].matchId}" turn ${trajectories[0].turn}` : `${trajectories.length} matches from "${trajectories[0].matchId}"`;
  if (trainableAuthors.length === 0) fail('MASK_EMPTY', `${where}: no trainable author was named`, { matchId: trajectories[0].matchId });

  const roles = trajectories[0].roles;
  const total = trajectories.reduce((a, t) => a + t.authors.length, 0);
  const shares = trainableAuthors.map((author) => {
    const role = roles[author];
    if (role === undefined) fail('INPUT_INVALID', `${where}: trainable author ${author} is not one of its ${roles.length} roles`, { matchId: trajectories[0].matchId, author });
    if (role === ENV_AUTHOR) fail('MASK_EMPTY', `${where}: author ${author} is "${ENV_AUTHOR}", the environment's tokens, which no loss may train`, { matchId: trajectories[0].matchId, author });
    const written = trajectories.reduce((a, t) => a + t.authors.filter((x) => x === author).length, 0);
    const share = total === 0 ? 0 : written / total;
    const details = { matchId: trajectories[0].matchId, turn: trajectories[0].turn, matches: trajectories.length, author, role, share, band: [min, max] };
    if (written === 0) fail('MASK_EMPTY', `${where}: trainable role "${role}" wrote none of ${total} tokens`, details);
    if (share < min || share > max) fail('AUTHOR_SHARE_OUT_OF_BAND', `${where}: role "${role}" wrote ${formatShare(share)} of the tokens, outside [${min}, ${max}]`, details);
    return { author, role, share };
  });

  const trainable = new Set(trainableAuthors);
  const masks = trajectories.map((t) => ({
    mask: t.authors.map((author) => (trainable.has(author) && t.roles[author] !== ENV_AUTHOR ? 1 : 0)),
    shares: trainableAuthors.map((author) => ({ author, role: roles[author], share: authorShare(t, author) })),
  }));
  return { masks, shares };
}

/** The loss mask of one match on its own: the batch rule applied to a batch of one. */
export function lossMask(trajectory: Trajectory, trainableAuthors: readonly number[], options: LossMaskOptions): LossMask {
  return batchLossMasks([trajectory], trainableAuthors, options).masks[0];
}

function formatShare(share: number): string {
  return `${(share * 100).toFixed(1)}% (${share})`;
}
