import type { ModelConfig } from './config.ts';
import type { HostTensor } from '../ort.ts';

/**
 * The cos/sin caches of onnxruntime's RotaryEmbedding, [positions, head_dim / 2], fed to the inference graphs as
 * inputs and grown (by doubling) to the positions a call reaches, so nothing is sized by max_position_embeddings
 * (which a config may set to 1e9). Angles are computed in float64 and rounded once.
 */
export class RotaryTables {
  private cos = new Float32Array(0);
  private sin = new Float32Array(0);
  private length = 0;

  constructor(private readonly config: Pick<ModelConfig, 'headDim' | 'ropeTheta'>) {}

  /** Tables covering positions 0..positions-1 (or more). */
  feeds(positions: number): { cos: HostTensor; sin: HostTensor } {
    if (positions > this.length) this.grow(Math.max(positions, 2 * this.length, 64));
    const dims = [this.length, this.config.headDim / 2];
    return { cos: { dtype: 'float32', dims, data: this.cos }, sin: { dtype: 'float32', dims, data: this.sin } };
  }

  private grow(length: number): void {
    const half = this.config.headDim / 2;
    this.cos = new Float32Array(length * half);
    this.sin = new Float32Array(length * half);
    for (let i = 0; i < half; i++) {
      const invFreq = 1 / this.config.ropeTheta ** ((2 * i) / this.config.headDim);
      for (let p = 0; p < length; p++) {
        const angle = p * invFreq;
        this.cos[p * half + i] = Math.cos(angle);
        this.sin[p * half + i] = Math.sin(angle);
      }
    }
    this.length = length;
  }
}
