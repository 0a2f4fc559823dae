/** A judge's word on one response: whether an answer could be extracted, and whether it is the gold one. */
export interface Verdict {
  answer_present: boolean;
  correct: boolean;
}

/** Judges a response against the gold answer. Pure and bounded in time: it never runs model text. */
export type Grader = (gold: string, prediction: string) => Verdict;

/** The `judge` of a reward rule's verdict made by the grader (a verifier role's verdicts name that role). */
export const GRADER_JUDGE = 'grader';
