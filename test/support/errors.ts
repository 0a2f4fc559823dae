import { expect } from 'vitest';
import { LudusError } from '../../core/errors.ts';

/** The LudusError a promise must reject with. */
export async function rejection(promise: Promise<unknown>): Promise<LudusError> {
  const error = await promise.then(
    () => expect.unreachable('the call succeeded'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LudusError);
  return error as LudusError;
}

/** Each input must be refused by `parse` with CONFIG_INVALID naming its field. */
export function expectConfigInvalid(parse: (input: unknown) => unknown, cases: ReadonlyArray<[unknown, string]>): void {
  for (const [input, field] of cases) {
    try {
      parse(input);
      expect.unreachable(`accepted ${JSON.stringify(input)}`);
    } catch (error) {
      expect(LudusError.is(error, 'CONFIG_INVALID')).toBe(true);
      expect((error as LudusError).message).toContain(`field "${field}"`);
    }
  }
}
