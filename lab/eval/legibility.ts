import { fail, present } from '../../core/errors.ts';
import { overlapOfLogs } from '../../core/metrics/token-drift.ts';
import type { Scorer } from '../../native/runtime/scorer.ts';

export interface ResponseLegibility {
  /** Sum over scored positions of -log p_jun(token | context), in nats. */
  crossEntropySum: number;
  /** Sum over scored positions of α = Σ_v min(p_sen(v | ·), p_jun(v | ·)). */
  overlapSum: number;
  /** Positions scored: the response tokens, stop tokens excluded. */
  positions: number;
}

/**
 * Tandem RL §4.5, teacher-forced: both models read prompt + the senior's response in one forward pass each; at
 * every response position the junior's log-probability of the senior's token gives the cross-entropy, and the two
 * full next-token distributions give the overlap α. `scoreBatch` sequences go through the scorers at a time.
 */
export async function scoreLegibility(
  senior: Scorer,
  junior: Scorer,
  responses: ReadonlyArray<{ prompt: readonly number[]; tokens: readonly number[] }>,
  stopTokens: readonly number[],
  scoreBatch: number,
): Promise<ResponseLegibility[]> {
  const V = senior.policy.config.vocabSize;
  if (junior.policy.config.vocabSize !== V) fail('TOKENIZER_MISMATCH', `legibility: senior vocabulary ${V} and junior vocabulary ${junior.policy.config.vocabSize} differ`);
  const stops = new Set(stopTokens);
  const out: ResponseLegibility[] = [];
  for (let start = 0; start < responses.length; start += scoreBatch) {
    const chunk = responses.slice(start, start + scoreBatch);
    const sequences = chunk.map((r) => [...r.prompt, ...r.tokens]);
    const [sen, jun] = [await senior.score(sequences, { full: true }), await junior.score(sequences, { full: true })];
    for (const [i, r] of chunk.entries()) {
      const seniorFull = present(sen[i].full, 'the senior distributions scored with { full: true }');
      const juniorFull = present(jun[i].full, 'the junior distributions scored with { full: true }');
      const P = r.prompt.length;
      let crossEntropySum = 0;
      let overlapSum = 0;
      let positions = 0;
      for (let j = 0; j < r.tokens.length; j++) {
        const token = r.tokens[j];
        if (stops.has(token)) continue;
        // Row P + j - 1 holds the next-token distribution that predicts response token j.
        const row = (P + j - 1) * V;
        crossEntropySum -= juniorFull[row + token];
        overlapSum += overlapOfLogs(seniorFull, juniorFull, row, V);
        positions++;
      }
      out.push({ crossEntropySum, overlapSum, positions });
    }
  }
  return out;
}
