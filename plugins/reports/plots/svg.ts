/** Attribute values and text are escaped; numbers are printed with at most 2 decimals so output is byte-stable. */
export type Attributes = Record<string, string | number | undefined>;

export const escapeXml = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

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
