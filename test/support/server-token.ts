import { TOKEN_ENV } from '../../server/server-token.ts';

/** The token the tests' servers require. */
export const TEST_TOKEN = 'ludus-test-token-0123456789';

/** Headers that pass a ludus server's door: the bearer token, and any others given. */
export const authorized = (headers: Record<string, string> = {}): Record<string, string> => ({ authorization: `Bearer ${TEST_TOKEN}`, ...headers });

/** ludus's clients (and the servers the tests spawn) read the token from LUDUS_TOKEN: set for this test file's process. */
export function useTestToken(): void {
  process.env[TOKEN_ENV] = TEST_TOKEN;
}
