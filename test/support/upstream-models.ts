import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A request model as test/fixtures/remote/upstream-request-models.json records it: field name to Python annotation. */
export interface UpstreamModel {
  readonly repository: string;
  readonly commit: string;
  readonly file: string;
  readonly model: string;
  readonly fields: Readonly<Record<string, string>>;
  readonly aliases?: Readonly<Record<string, string>>;
}

export interface UpstreamModels {
  readonly vllm: UpstreamModel & { readonly defaultsFromGenerationConfig: { readonly neutral: Readonly<Record<string, number>> } };
  readonly sglangGenerate: UpstreamModel;
  readonly sglangSampling: UpstreamModel & { readonly neutral: Readonly<Record<string, number>> };
}

export const UPSTREAM: UpstreamModels = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'fixtures', 'remote', 'upstream-request-models.json'), 'utf8')) as UpstreamModels;

/** Python types as the annotations spell them, parsed: enough of typing for request models. */
type PyType =
  | { kind: 'name'; name: string }
  | { kind: 'union'; of: PyType[] }
  | { kind: 'list'; of: PyType }
  | { kind: 'dict'; key: PyType; value: PyType }
  | { kind: 'literal'; values: unknown[] }
  | { kind: 'bounded'; of: PyType; ge?: number; le?: number };

/**
 * Why a JSON value would not validate as a model's field ('' when it would): unknown fields, wrong types, bounds.
 * Names it does not know (a nested model such as StreamOptions) refuse every value, so a field of such a type that
 * ludus starts sending must be looked at first.
 */
export function violations(model: UpstreamModel, body: Record<string, unknown>): string[] {
  return Object.entries(body).flatMap(([field, value]) => {
    const annotation = model.fields[field];
    if (annotation === undefined) return [`${model.model} has no field "${field}" (${model.repository}@${model.commit.slice(0, 10)} ${model.file}): the server would drop it`];
    const why = mismatch(parse(annotation, model.aliases ?? {}), value);
    return why === '' ? [] : [`${model.model}.${field} = ${JSON.stringify(value)} is not ${annotation}: ${why}`];
  });
}

function mismatch(type: PyType, value: unknown): string {
  switch (type.kind) {
    case 'union':
      return type.of.some((t) => mismatch(t, value) === '') ? '' : 'no member of the union matches';
    case 'list':
      if (!Array.isArray(value)) return 'not a list';
      return value.map((item) => mismatch(type.of, item)).find((why) => why !== '') ?? '';
    case 'dict':
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not an object';
      return Object.values(value).map((item) => mismatch(type.value, item)).find((why) => why !== '') ?? '';
    case 'literal':
      return type.values.includes(value) ? '' : `not one of ${JSON.stringify(type.values)}`;
    case 'bounded': {
      const inner = mismatch(type.of, value);
      if (inner !== '') return inner;
      if (type.ge !== undefined && (value as number) < type.ge) return `below ${type.ge}`;
      if (type.le !== undefined && (value as number) > type.le) return `above ${type.le}`;
      return '';
    }
    case 'name':
      switch (type.name) {
        case 'None':
          return value === null ? '' : 'not None';
        case 'Any':
          return '';
        case 'int':
          return Number.isInteger(value) ? '' : 'not an int';
        case 'float':
          return typeof value === 'number' ? '' : 'not a float';
        case 'bool':
          return typeof value === 'boolean' ? '' : 'not a bool';
        case 'str':
          return typeof value === 'string' ? '' : 'not a str';
        default:
          return `${type.name} is a type this check does not know`;
      }
  }
}

/** Parses an annotation such as `list[Annotated[int, Field(ge=0)]] | Optional[Union[str, List[str]]]`. */
function parse(text: string, aliases: Readonly<Record<string, string>>): PyType {
  let at = 0;
  const skip = () => {
    while (text[at] === ' ') at++;
  };
  const word = (): string => {
    skip();
    const match = /^[A-Za-z_][A-Za-z_0-9.]*/.exec(text.slice(at));
    if (!match) throw new Error(`annotation "${text}": a name expected at ${at}`);
    at += match[0].length;
    return match[0];
  };
  const expect = (char: string) => {
    skip();
    if (text[at] !== char) throw new Error(`annotation "${text}": "${char}" expected at ${at}`);
    at++;
  };
  const args = (): PyType[] => {
    const out: PyType[] = [];
    expect('[');
    for (;;) {
      out.push(union());
      skip();
      if (text[at] === ',') at++;
      else break;
    }
    expect(']');
    return out;
  };
  const literalArgs = (): unknown[] => {
    expect('[');
    const close = text.indexOf(']', at);
    const values = text.slice(at, close).split(',').map((s) => s.trim()).map((s) => (/^['"]/.test(s) ? s.slice(1, -1) : Number(s)));
    at = close + 1;
    return values;
  };
  const atom = (): PyType => {
    const name = word();
    skip();
    if (name === 'Literal') return { kind: 'literal', values: literalArgs() };
    if (name === 'Annotated') {
      expect('[');
      const of = union();
      expect(',');
      const field = text.slice(at, text.indexOf(']', at));
      at += field.length + 1;
      const bound = (key: string) => {
        const match = new RegExp(`${key}=(-?[0-9.e]+)`).exec(field);
        return match ? Number(match[1]) : undefined;
      };
      return { kind: 'bounded', of, ge: bound('ge'), le: bound('le') };
    }
    if (text[at] !== '[') {
      if (aliases[name] !== undefined) return parse(aliases[name], {});
      if (name === 'dict') return { kind: 'dict', key: { kind: 'name', name: 'str' }, value: { kind: 'name', name: 'Any' } };
      return { kind: 'name', name };
    }
    const of = args();
    switch (name) {
      case 'Optional':
        return { kind: 'union', of: [of[0], { kind: 'name', name: 'None' }] };
      case 'Union':
        return { kind: 'union', of };
      case 'list':
      case 'List':
      case 'Set':
      case 'set':
        return { kind: 'list', of: of[0] };
      case 'dict':
      case 'Dict':
        return { kind: 'dict', key: of[0], value: of[1] };
      default:
        return { kind: 'name', name };
    }
  };
  const union = (): PyType => {
    const members = [atom()];
    skip();
    while (text[at] === '|') {
      at++;
      members.push(atom());
      skip();
    }
    return members.length === 1 ? members[0] : { kind: 'union', of: members };
  };
  const type = union();
  skip();
  if (at !== text.length) throw new Error(`annotation "${text}": trailing text at ${at}`);
  return type;
}
