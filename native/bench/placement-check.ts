import { execFile } from 'node:child_process';
import { LudusError } from '../../core/errors.ts';
import { initWeights, presetConfig } from '../model/presets.ts';
import { PROVIDER_NAMES, type Device } from '../ort.ts';
import { fallbacks, parsePlacement, type Fallback } from '../placement.ts';
import { Decoder } from '../runtime/decoder.ts';
import type { Policy } from '../runtime/policy.ts';
import { Scorer } from '../runtime/scorer.ts';
import { Learner } from '../train/learner.ts';
import { phaseCommand } from './phase-command.ts';

/** The graphs a GPU runs: the decoder's ('last'), the scorer's ('all') and the learner's forward+backward. */
export const CHECKED_GRAPHS = ['decode', 'score', 'train'] as const;
export type CheckedGraph = (typeof CHECKED_GRAPHS)[number];

/**
 * Opens one of the graphs on `device` through the code that runs it (Decoder, Scorer, Learner), on seeded random
 * weights of `preset`: onnxruntime places nodes by op type and attributes, not by size, so a small preset tells
 * where the real one's nodes go. Run in a process of its own with LUDUS_ORT_VERBOSE=1 (checkPlacement).
 */
export async function placementPhase(ctx: { preset: string; graph: CheckedGraph; device: Device; seed: number }): Promise<Record<string, unknown>> {
  const config = presetConfig(ctx.preset);
  const weights = initWeights(config, ctx.seed, { fast: true });
  const policy: Policy = { name: ctx.preset, config, weights, tokenizerHash: 'placement' };
  const opened =
    ctx.graph === 'decode'
      ? await Decoder.create([policy], { batch: 1, maxLen: 8, device: ctx.device })
      : ctx.graph === 'score'
        ? await Scorer.create(policy, { device: ctx.device })
        : await Learner.create(config, weights, { device: ctx.device });
  await opened.release();
  return { graph: ctx.graph };
}

export interface GraphPlacement extends Fallback {
  graph: CheckedGraph;
  /** Nodes per provider. */
  counts: Record<string, number>;
  /** Op types the device's provider said it has no kernel for. */
  noKernel: string[];
}

/** Where each graph's nodes run on `device`: the nodes its provider did not take, from onnxruntime's verbose log. */
export async function checkPlacement(options: { device: Device; preset: string; seed?: number; graphs?: readonly CheckedGraph[] }): Promise<GraphPlacement[]> {
  const out: GraphPlacement[] = [];
  for (const graph of options.graphs ?? CHECKED_GRAPHS) {
    const log = await verboseLogOf({ preset: options.preset, graph, device: options.device, seed: options.seed ?? 1 });
    const placement = parsePlacement(log);
    const fallback = fallbacks(placement, PROVIDER_NAMES[options.device]);
    out.push({ graph, counts: placement.counts, ...fallback, noKernel: [...new Set(placement.noKernel.map((node) => node.op))] });
  }
  return out;
}

/** The stderr of a process that opened the graph with onnxruntime's verbose log on. */
export function verboseLogOf(ctx: { preset: string; graph: CheckedGraph; device: Device; seed: number }): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [...phaseCommand(), 'placement', JSON.stringify(ctx)], { env: { ...process.env, LUDUS_ORT_VERBOSE: '1' }, maxBuffer: 512 * 2 ** 20, timeout: 600_000 }, (error, stdout, stderr) => {
      const refusal = stdout.trim().split('\n').pop() ?? '';
      if (refusal.startsWith('{"error"')) {
        const { code, message } = (JSON.parse(refusal) as { error: { code: LudusError['code']; message: string } }).error;
        reject(new LudusError(code, message.replace(/^\[\w+\] /, '')));
      } else if (error) reject(new Error(`opening the ${ctx.graph} graph on ${ctx.device} failed: ${error.message}\n${stderr.slice(-2000)}`));
      else resolve(stderr);
    });
  });
}
