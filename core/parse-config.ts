import type { z } from 'zod';
import { fail } from './errors.ts';

/** Parses a config with its zod schema; a bad field becomes CONFIG_INVALID naming `where` and the field. */
export function parseConfig<T extends z.ZodType>(schema: T, input: unknown, where: string): z.output<T> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    fail('CONFIG_INVALID', `${where}: field "${issue.path.join('.')}" ${issue.message}`, { where, path: issue.path });
  }
  return parsed.data as z.output<T>;
}
