import { afterAll } from 'vitest';
import { Decoder } from '../../native/runtime/decoder.ts';

/** `Decoder.create` for the enclosing describe block, every decoder it opened released after the block's tests. */
export function decoderOpener(): (...args: Parameters<typeof Decoder.create>) => Promise<Decoder> {
  const opened: Decoder[] = [];
  afterAll(async () => Promise.all(opened.map((d) => d.release())));
  return async (...args) => {
    const decoder = await Decoder.create(...args);
    opened.push(decoder);
    return decoder;
  };
}
