/** The answer is not in the subset of LaTeX the grader understands; it is then compared as plain text. */
export class Unparseable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'Unparseable';
  }
}
