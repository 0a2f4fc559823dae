import type { z } from 'zod';
import { fail } from '../../core/errors.ts';

/** Validates a task's options; a wrong or unknown option is CONFIG_INVALID naming the task and field. */
export function parseOptions<Schema extends z.ZodType>(schema: Schema, input: unknown, where: string): z.output<Schema> {
  const parsed = schema.safeParse(input ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue.path.length > 0 ? `option "${issue.path.join('.')}"` : 'options';
    return fail('CONFIG_INVALID', `${where}: ${field}: ${issue.message}`, { path: issue.path });
  }
  return parsed.data;
}
