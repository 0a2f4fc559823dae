import { createHash } from 'node:crypto';
import { tensorOf, type Weights } from './weights.ts';

/** sha256 over the named tensors' names, dims and bytes, in name order: whether two sides hold the very same weights. */
export function fingerprint(weights: Weights): string {
  const hash = createHash('sha256');
  for (const name of [...weights.keys()].sort()) {
    const t = tensorOf(weights, name);
    hash.update(`${name}:${t.dims.join('x')};`);
    hash.update(new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength));
  }
  return hash.digest('hex');
}
