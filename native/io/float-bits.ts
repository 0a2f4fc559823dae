/**
 * Conversions between float32 and the 16-bit float formats, on bit patterns held in typed arrays.
 * Narrowing rounds to nearest, ties to even, like PyTorch and numpy; NaN becomes the canonical quiet NaN.
 */

let halfToFloatBits: Uint32Array | undefined;

function f16ToF32Bits(h: number): number {
  const sign = (h & 0x8000) << 16;
  const exponent = (h >>> 10) & 0x1f;
  let mantissa = h & 0x3ff;
  if (exponent === 0x1f) return (sign | 0x7f800000 | (mantissa << 13)) >>> 0;
  if (exponent !== 0) return (sign | ((exponent + 112) << 23) | (mantissa << 13)) >>> 0;
  if (mantissa === 0) return sign >>> 0;
  let biased = 113;
  while ((mantissa & 0x400) === 0) {
    mantissa <<= 1;
    biased--;
  }
  return (sign | (biased << 23) | ((mantissa & 0x3ff) << 13)) >>> 0;
}

/** All 65536 float16 patterns widened to float32 bits, built on first use. */
function halfTable(): Uint32Array {
  if (!halfToFloatBits) {
    halfToFloatBits = new Uint32Array(65536);
    for (let h = 0; h < 65536; h++) halfToFloatBits[h] = f16ToF32Bits(h);
  }
  return halfToFloatBits;
}

/**
 * `data`'s upper half holds `data.length` 16-bit values; widens them to float32 over the whole array.
 * Walking forward is safe: element i is written to bytes [4i, 4i+4), never past the 16-bit value i still to read.
 */
export function expandHalfWidthInPlace(data: Float32Array, format: 'F16' | 'BF16'): void {
  const n = data.length;
  const narrow = new Uint16Array(data.buffer, data.byteOffset + 2 * n, n);
  const wide = new Uint32Array(data.buffer, data.byteOffset, n);
  if (format === 'BF16') {
    for (let i = 0; i < n; i++) wide[i] = narrow[i] << 16;
  } else {
    const table = halfTable();
    for (let i = 0; i < n; i++) wide[i] = table[narrow[i]];
  }
}

export function bf16BitsOf(data: Float32Array): Uint16Array {
  const bits = new Uint32Array(data.buffer, data.byteOffset, data.length);
  const out = new Uint16Array(data.length);
  for (let i = 0; i < bits.length; i++) {
    const u = bits[i];
    out[i] = (u & 0x7fffffff) > 0x7f800000 ? 0x7fc0 : (u + 0x7fff + ((u >>> 16) & 1)) >>> 16;
  }
  return out;
}

function f32ToF16Bits(f: number): number {
  const sign = (f >>> 16) & 0x8000;
  const exponentBits = f & 0x7f800000;
  const mantissa = f & 0x007fffff;
  if (exponentBits >= 0x47800000) {
    if (exponentBits === 0x7f800000 && mantissa !== 0) return sign | 0x7e00;
    return sign | 0x7c00;
  }
  if (exponentBits <= 0x38000000) {
    if (exponentBits < 0x33000000) return sign;
    let significand = (0x00800000 | mantissa) >>> (113 - (exponentBits >>> 23));
    if ((significand & 0x3fff) !== 0x1000 || (f & 0x7ff) !== 0) significand += 0x1000;
    return sign | (significand >>> 13);
  }
  let significand = mantissa;
  if ((significand & 0x3fff) !== 0x1000) significand += 0x1000;
  return sign + (((exponentBits - 0x38000000) >>> 13) + (significand >>> 13));
}

export function f16BitsOf(data: Float32Array): Uint16Array {
  const bits = new Uint32Array(data.buffer, data.byteOffset, data.length);
  const out = new Uint16Array(data.length);
  for (let i = 0; i < bits.length; i++) out[i] = f32ToF16Bits(bits[i]);
  return out;
}
