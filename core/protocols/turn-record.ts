/**
 * One span of the transcript written by one role. In a sequential protocol a record is a whole turn; in co-decoding,
 * a ply: the run of tokens one author wrote between two handoffs of the single turn.
 */
export interface TurnRecord<Role extends string> {
  readonly turn: number;
  readonly role: Role;
  readonly tokens: readonly number[];
  readonly text: string;
  /** Hidden information (a drafter's withheld answer, a verifier's private verdict); views strip it. */
  readonly secret?: Readonly<Record<string, unknown>>;
}
