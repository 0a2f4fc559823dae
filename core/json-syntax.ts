/**
 * What is wrong with text that `JSON.parse` refused, without quoting the text: V8's message quotes the start of its
 * input ("Unexpected token 'r', "root:x:0:0"... is not valid JSON"), and a file named by a request may be anyone's.
 * Only the position (when V8 gives one) is kept.
 */
export function jsonSyntaxProblem(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/end of JSON input/.test(message)) return 'it ends early';
  const position = /at position (\d+)/.exec(message)?.[1];
  return position === undefined ? 'an unexpected character' : `a syntax error at character ${position}`;
}
