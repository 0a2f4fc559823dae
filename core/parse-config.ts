import type { z } from 'zod';
import { closestName } from './closest-name.ts';
import { fail } from './errors.ts';

/**
 * Parses a config with its zod schema; a bad field becomes CONFIG_INVALID naming `where` and the field. Every level
 * is strict, whatever the schema says for its nested objects: a key no object of the schema has is refused by name,
 * with the closest field suggested (a typo, or a field that lives at another level such as `schedule.lr`). Objects
 * that take any key (records, `z.looseObject`) are left open.
 */
export function parseConfig<T extends z.ZodType>(schema: T, input: unknown, where: string): z.output<T> {
  const unknown = firstUnknownKey(schema, input, []);
  if (unknown) refuseUnknown(schema, where, unknown.path, unknown.key);
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    if (issue.code === 'unrecognized_keys') refuseUnknown(schema, where, issue.path, issue.keys[0]);
    const given = valueAt(input, issue.path);
    fail('CONFIG_INVALID', `${where}: field "${issue.path.join('.')}": ${issueWords(issue, given)}`, { where, path: issue.path });
  }
  return parsed.data as z.output<T>;
}

/** The value a config holds at `path` (undefined where it holds none). */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) value = typeof value === 'object' && value !== null ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  return value;
}

/** A value as a refusal quotes it: its JSON, shortened, and what kind of value it is. */
function shown(value: unknown): string {
  if (value === undefined) return 'nothing';
  const json = JSON.stringify(value) ?? String(value);
  const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : `a ${typeof value}`;
  return `${json.length > 60 ? `${json.slice(0, 60)}…` : json} (${kind})`;
}

const KINDS: Record<string, string> = { number: 'a number', string: 'a string', boolean: 'true or false', object: 'an object', array: 'an array', int: 'an integer' };

/** What was given and what the field expects, in words (not the validation library's). */
function issueWords(issue: z.core.$ZodIssue, given: unknown): string {
  const what = `given ${shown(given)}`;
  switch (issue.code) {
    case 'invalid_type':
      return given === undefined ? `missing: expected ${KINDS[issue.expected] ?? issue.expected}` : `${what}, expected ${KINDS[issue.expected] ?? issue.expected}`;
    case 'too_small':
    case 'too_big': {
      const bound = issue.code === 'too_small' ? issue.minimum : issue.maximum;
      const sign = issue.code === 'too_small' ? (issue.inclusive ? '≥' : '>') : issue.inclusive ? '≤' : '<';
      const of = issue.origin === 'number' || issue.origin === 'int' || issue.origin === 'bigint' ? 'a number' : `a ${issue.origin} of length`;
      return `${what}, expected ${of} ${sign} ${String(bound)}`;
    }
    case 'invalid_value':
      return `${what}, expected ${issue.values.length === 1 ? '' : 'one of '}${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    default:
      return `${what}: ${issue.message}`;
  }
}

function refuseUnknown(schema: z.ZodType, where: string, at: readonly PropertyKey[], key: string): never {
  const path = [...at.map(String), key];
  const field = path.join('.');
  const suggestion = closestField(schema, at.map(String), key);
  return fail('CONFIG_INVALID', `${where}: unknown field "${field}"${suggestion ? ` (did you mean "${suggestion}"?)` : ''}`, { where, path, ...(suggestion ? { suggestion } : {}) });
}

interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  innerType?: z.ZodType;
  in?: z.ZodType;
  options?: z.ZodType[];
  element?: z.ZodType;
}

const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

const WRAPPERS = new Set(['optional', 'default', 'prefault', 'nullable', 'readonly', 'catch', 'nonoptional']);

/** The schema under wrappers that leave the value's shape alone (optional, default, a pipe's input, ...). */
function unwrap(schema: z.ZodType): z.ZodType {
  for (;;) {
    const def = defOf(schema);
    if (WRAPPERS.has(def.type) && def.innerType) schema = def.innerType;
    else if (def.type === 'pipe' && def.in) schema = def.in;
    else return schema;
  }
}

/** The object schemas a value at this point may be checked against: one, or each object of a union. */
function objectsOf(schema: z.ZodType): Def[] {
  const def = defOf(unwrap(schema));
  if (def.type === 'object') return [def];
  if (def.type === 'union') return (def.options ?? []).flatMap(objectsOf);
  return [];
}

/** An object's own field of that name: never one its shape inherits (`__proto__`, `constructor` in a config are unknown keys). */
const ownField = (def: Def, key: string): z.ZodType | undefined => (def.shape !== undefined && Object.hasOwn(def.shape, key) ? def.shape[key] : undefined);

const isOpen = (def: Def): boolean => def.catchall !== undefined && defOf(def.catchall).type !== 'never';
const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A literal field (a union's discriminator) that `value` contradicts rules its object out. */
function fitsLiterals(def: Def, value: Record<string, unknown>): boolean {
  return Object.entries(def.shape ?? {}).every(([key, field]) => {
    const literal = defOf(field) as Def & { values?: unknown[] };
    return literal.type !== 'literal' || !(key in value) || (literal.values ?? []).includes(value[key]);
  });
}

function firstUnknownKey(schema: z.ZodType, value: unknown, path: string[]): { path: string[]; key: string } | undefined {
  const def = defOf(unwrap(schema));
  const objects = isPlainObject(value) ? objectsOf(schema).filter((object) => fitsLiterals(object, value)) : [];
  if (isPlainObject(value) && objects.length > 0) {
    for (const [key, child] of Object.entries(value)) {
      const field = objects.map((object) => ownField(object, key)).find((found) => found !== undefined);
      if (field === undefined) {
        if (!objects.some(isOpen)) return { path, key };
        continue;
      }
      const found = firstUnknownKey(field, child, [...path, key]);
      if (found) return found;
    }
  } else if (def.type === 'array' && def.element && Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = firstUnknownKey(def.element, item, [...path, String(i)]);
      if (found) return found;
    }
  }
  return undefined;
}

/** Every field of every object level, as dotted paths (records and unions' options included, array items not). */
function fieldPaths(schema: z.ZodType, prefix: string[] = []): string[][] {
  return objectsOf(schema).flatMap((def) => Object.entries(def.shape ?? {}).flatMap(([key, field]) => [[...prefix, key], ...fieldPaths(field, [...prefix, key])]));
}

/** The keys of the object(s) at `path`, following fields (and array items, whose index is any number). */
function keysAt(schema: z.ZodType, path: readonly string[]): string[] {
  let current = [schema];
  for (const step of path) {
    current = current.flatMap((s) => {
      const def = defOf(unwrap(s));
      if (def.type === 'array' && def.element) return [def.element];
      return objectsOf(s).flatMap((object) => ownField(object, step) ?? []);
    });
  }
  return [...new Set(current.flatMap((s) => objectsOf(s).flatMap((def) => Object.keys(def.shape ?? {}))))];
}

/**
 * The field a misplaced or misspelt `key` most likely meant: the same name at another level (`lr` for
 * `schedule.lr`), else a sibling within a small edit distance or one the key is a prefix of (`warmup`).
 */
function closestField(schema: z.ZodType, at: readonly string[], key: string): string | undefined {
  const lower = key.toLowerCase();
  const itself = [...at, key].join('.');
  const elsewhere = fieldPaths(schema).filter((path) => path.at(-1)?.toLowerCase() === lower && path.join('.') !== itself);
  if (elsewhere.length > 0) return elsewhere.sort((a, b) => a.length - b.length)[0].join('.');
  const sibling = closestName(key, keysAt(schema, at));
  return sibling === undefined ? undefined : [...at, sibling].join('.');
}
