import type { TurnRecord } from '../../core/protocols/turn-record.ts';

/** A co-decoded response as plies: each run of tokens one author wrote between two handoffs, with its text. */
export function plies<Role extends string>(tokens: readonly number[], authors: readonly number[], roles: readonly Role[], decode: (ids: number[]) => string): TurnRecord<Role>[] {
  const records: TurnRecord<Role>[] = [];
  let start = 0;
  for (let t = 1; t <= tokens.length; t++) {
    if (t === tokens.length || authors[t] !== authors[start]) {
      const span = tokens.slice(start, t);
      records.push({ turn: records.length, role: roles[authors[start]], tokens: span, text: decode(span) });
      start = t;
    }
  }
  return records;
}
