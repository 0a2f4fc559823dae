/**
 * Seeded PRNG whose whole state is a plain value, so a match can store and restore it exactly.
 * splitmix64 seeding into xoshiro128** (32-bit lanes, fast in JavaScript).
 */
export interface RngState {
  s: [number, number, number, number];
}

function splitmix32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x9e3779b9) >>> 0;
    let z = a;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
}

/** Mixes several integers (run seed, match id, turn, row...) into one 32-bit seed. */
export function deriveSeed(...parts: number[]): number {
  let h = 0x811c9dc5;
  for (const part of parts) {
    const next = splitmix32((h ^ (part >>> 0) ^ Math.floor(part / 2 ** 32)) >>> 0);
    h = next();
  }
  return h >>> 0;
}

export class Rng {
  private s: Uint32Array;

  constructor(seed: number | RngState) {
    if (typeof seed === 'number') {
      const next = splitmix32(seed);
      this.s = Uint32Array.from([next(), next(), next(), next()]);
      if (this.s.every((x) => x === 0)) this.s[0] = 1;
    } else {
      this.s = Uint32Array.from(seed.s);
    }
  }

  get state(): RngState {
    return { s: [this.s[0], this.s[1], this.s[2], this.s[3]] };
  }

  /** Uniform 32-bit unsigned integer. */
  nextU32(): number {
    const s = this.s;
    const result = Math.imul(rotl(Math.imul(s[1], 5) >>> 0, 7), 9) >>> 0;
    const t = (s[1] << 9) >>> 0;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 11);
    return result;
  }

  /** Uniform in [0, 1) with 53 bits. */
  next(): number {
    const hi = this.nextU32() >>> 5;
    const lo = this.nextU32() >>> 6;
    return (hi * 67108864 + lo) / 9007199254740992;
  }

  bernoulli(p: number): boolean {
    return this.next() < p;
  }

  /** Standard normal by Box–Muller. */
  normal(): number {
    let u = this.next();
    while (u === 0) u = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.next());
  }

  int(n: number): number {
    return Math.floor(this.next() * n);
  }
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}
