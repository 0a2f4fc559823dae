/**
 * GPT-2's byte-level alphabet: every byte has a printable character, so a token's surface
 * form is a string and any text survives encoding. Printable Latin-1 bytes stand for
 * themselves; the rest (controls, space, ...) move to U+0100 onwards, which makes the space
 * byte `Ġ` (U+0120) and newline `Ċ`.
 */
function standsForItself(byte: number): boolean {
  return (byte >= 0x21 && byte <= 0x7e) || (byte >= 0xa1 && byte <= 0xac) || (byte >= 0xae && byte <= 0xff);
}

function buildByteChars(): readonly string[] {
  const chars: string[] = [];
  let shifted = 0;
  for (let byte = 0; byte < 256; byte++) {
    chars.push(String.fromCodePoint(standsForItself(byte) ? byte : 256 + shifted++));
  }
  return chars;
}

/** `BYTE_CHARS[b]` is the character byte `b` is written as. */
export const BYTE_CHARS: readonly string[] = buildByteChars();

/** The byte-level form of a space: the word-initial marker of GPT-2/Qwen vocabularies. */
export const BYTE_LEVEL_SPACE = BYTE_CHARS[0x20];

const utf8 = new TextEncoder();

export function utf8Bytes(text: string): Uint8Array {
  return utf8.encode(text);
}
