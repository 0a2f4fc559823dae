/** Attribute values and text are escaped; numbers are printed with at most 2 decimals so output is byte-stable. */
export type Attributes = Record<string, string | number | undefined>;

/**
 * Characters XML 1.0 cannot carry at all, even as references: C0 controls other than tab and newlines, lone
 * surrogates, U+FFFE/U+FFFF. Token texts can hold them (a byte-level vocabulary has a token for each byte), so they
 * are written as visible `\uXXXX` escapes.
 */
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export const escapeXml = (text: string): string =>
  text
    .replace(NOT_XML, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');

export function num(value: number): string {
  const rounded = Math.round(value * 100) / 100;
  return Object.is(rounded, -0) ? '0' : String(rounded);
}

export function element(tag: string, attributes: Attributes, children: readonly string[] | string = []): string {
  const attrs = Object.entries(attributes)
    .filter((entry): entry is [string, string | number] => entry[1] !== undefined)
    .map(([name, value]) => ` ${name}="${typeof value === 'number' ? num(value) : escapeXml(value)}"`)
    .join('');
  const body = typeof children === 'string' ? escapeXml(children) : children.join('');
  return body.length === 0 ? `<${tag}${attrs}/>` : `<${tag}${attrs}>${body}</${tag}>`;
}
