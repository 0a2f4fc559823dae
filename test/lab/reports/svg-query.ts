/** Minimal reading of the SVG the plots write: the attributes of every `<tag …>` (optionally of one class). */
export function elements(svg: string, tag: string, className?: string): Array<Record<string, string>> {
  const found: Array<Record<string, string>> = [];
  for (const match of svg.matchAll(new RegExp(`<${tag}((?:\\s+[\\w:-]+="[^"]*")*)\\s*/?>`, 'g'))) {
    const attrs = Object.fromEntries([...match[1].matchAll(/([\w:-]+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (className === undefined || attrs.class === className) found.push(attrs);
  }
  return found;
}

/** The text content of `<text class="…">` elements, or of all `<text>` elements. */
export function texts(svg: string, className?: string): string[] {
  return [...svg.matchAll(/<text((?:\s+[\w:-]+="[^"]*")*)>([^<]*)<\/text>/g)]
    .filter((m) => className === undefined || m[1].includes(`class="${className}"`))
    .map((m) => m[2]);
}

/** The PNG's IHDR width and height, after checking its 8-byte signature. */
export function pngSize(bytes: Uint8Array): { signature: boolean; width: number; height: number } {
  const signature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a].every((b, i) => bytes[i] === b);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { signature, width: view.getUint32(16), height: view.getUint32(20) };
}
