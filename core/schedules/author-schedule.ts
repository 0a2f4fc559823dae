/**
 * Decides, row by row, which co-decoding partner writes the next token. Stateful per row; `first` starts a row.
 * Authors are indices into the list of policies stepped together.
 */
export interface AuthorSchedule {
  first(row: number): number;
  /** Called after `token` was emitted by the current author; returns the author of the next token. */
  next(row: number, token: number): number;
}

/** One policy writes every token. */
export const soloSchedule = (author = 0): AuthorSchedule => ({ first: () => author, next: () => author });

/** Each row written throughout by its own author (rows of several policies in one solo batch). */
export const rowAuthorSchedule = (authors: readonly number[]): AuthorSchedule => ({ first: (row) => authors[row], next: (row) => authors[row] });
