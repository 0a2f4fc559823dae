import { BYTE_LEVEL_SPACE } from './byte-level.ts';

/** Sentencepiece's word-initial marker (U+2581), which Metaspace writes in place of a space. */
export const METASPACE = '\u2581';

type Component = { type?: unknown; [key: string]: unknown } | null | undefined;

function children(component: Component): Component[] {
  if (!component) return [];
  const nested = component.pretokenizers ?? component.decoders ?? component.normalizers;
  return Array.isArray(nested) ? (nested as Component[]) : [];
}

function stringPattern(component: NonNullable<Component>): string | undefined {
  const pattern = component.pattern as { String?: unknown } | undefined;
  return typeof pattern?.String === 'string' ? pattern.String : undefined;
}

/** The marker a pre-tokenizer, decoder or normalizer declares: ByteLevel's `Ġ`, Metaspace's replacement, or a Replace between it and a space. */
function declaredMarker(component: Component): string | undefined {
  if (!component) return undefined;
  switch (component.type) {
    case 'ByteLevel':
      return BYTE_LEVEL_SPACE;
    case 'Metaspace': {
      const replacement = component.replacement ?? component.str_rep;
      return typeof replacement === 'string' && replacement.length > 0 ? replacement : METASPACE;
    }
    case 'Replace': {
      const pattern = stringPattern(component);
      if (component.content === ' ' && pattern) return pattern;
      if (pattern === ' ' && typeof component.content === 'string' && component.content.length > 0) return component.content;
      return undefined;
    }
    default:
      for (const child of children(component)) {
        const marker = declaredMarker(child);
        if (marker) return marker;
      }
      return undefined;
  }
}

/** Below this share of the vocabulary, a leading `Ġ` or `▁` is taken for chance rather than a marker. */
const MIN_MARKED_SHARE = 0.01;

function markerByFrequency(surfaces: Iterable<string>): string | undefined {
  const counts = new Map<string, number>([[BYTE_LEVEL_SPACE, 0], [METASPACE, 0]]);
  let total = 0;
  for (const surface of surfaces) {
    total++;
    const first = surface[0];
    const count = first === undefined ? undefined : counts.get(first);
    if (first !== undefined && count !== undefined) counts.set(first, count + 1);
  }
  const [marker, count] = [...counts.entries()].sort((a, b) => b[1] - a[1])[0];
  return count > 0 && count >= MIN_MARKED_SHARE * total ? marker : undefined;
}

/**
 * The prefix a tokenizer writes on word-initial tokens: read from its pre-tokenizer, decoder
 * or normalizer, else inferred from how many surface forms start with `Ġ` or `▁`.
 */
export function findWordMarker(json: Readonly<Record<string, unknown>>, surfaces: Iterable<string>): string | undefined {
  for (const part of ['pre_tokenizer', 'decoder', 'normalizer']) {
    const marker = declaredMarker(json[part] as Component);
    if (marker) return marker;
  }
  return markerByFrequency(surfaces);
}
