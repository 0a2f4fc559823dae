import { fail } from '../core/errors.ts';

/**
 * Which execution provider runs each node of a graph, read from onnxruntime's verbose session log (SessionOptions
 * `verboseLog`). At session creation onnxruntime prints "Node placements", then either one line "All nodes placed on
 * [P]. Number of nodes: N", or for each provider a line "Node(s) placed on [P]. Number of nodes: N" followed by one
 * line per node, "  OpType (node name)". Providers that lack a kernel say so first: "... kernel not found in
 * registries for Op type: X node name: Y". A node a GPU provider cannot take runs on the CPU, with a copy
 * (MemcpyToHost / MemcpyFromHost) on each side of it: once per token in a decode graph.
 */
export interface PlacedNode {
  op: string;
  name: string;
}

export interface Placement {
  /** Nodes per provider, as the log counts them. */
  counts: Record<string, number>;
  /** The nodes of each provider the log lists (none where it says only "All nodes placed on"). */
  nodes: Record<string, PlacedNode[]>;
  /** Nodes a provider said it has no kernel for, by provider tag as logged (webgpu, CUDA, ...). */
  noKernel: PlacedNode[];
}

const PLACED = /(All nodes|Node\(s\)) placed on \[(\w+)\]\. Number of nodes: (\d+)/;
/** A node line: after the logger's prefix ("...VerifyEachNodeIsAssignedToAnEp]") or bare, when a sink prints a multi-line message as is. */
const NODE = /^(?:.*VerifyEachNodeIsAssignedToAnEp\]\s*|\s+)(\w+) \(([^)]*)\)\s*$/;
const NO_KERNEL = /kernel not found in registries for Op type: (\w+) node name: (.*)$/;

export function parsePlacement(log: string): Placement {
  const placement: Placement = { counts: {}, nodes: {}, noKernel: [] };
  let provider: string | null = null;
  let seen = false;
  for (const line of log.split('\n')) {
    const missing = NO_KERNEL.exec(line);
    if (missing) {
      placement.noKernel.push({ op: missing[1], name: missing[2].trim() });
      continue;
    }
    const header = PLACED.exec(line);
    if (header) {
      seen = true;
      const [, scope, name, count] = header;
      placement.counts[name] = Number(count);
      placement.nodes[name] ??= [];
      provider = scope === 'All nodes' ? null : name;
      continue;
    }
    const node = provider ? NODE.exec(line) : null;
    if (node && provider) placement.nodes[provider].push({ op: node[1], name: node[2] });
    else provider = null;
  }
  if (!seen) fail('DATA_INVALID', 'no node placements in the log: was the session created with its verbose log on (SessionOptions.verboseLog)?');
  return placement;
}

export interface Fallback {
  /** Nodes placed on another provider than the one asked about. */
  count: number;
  /** Those of them the log lists (all of them unless a single other provider took the whole graph). */
  nodes: PlacedNode[];
  /** The op types among them, with how many nodes each, most first. */
  ops: Array<[string, number]>;
  /** Host-device copies onnxruntime inserted (Memcpy nodes): each is a round trip per run. */
  copies: number;
}

/** The nodes of the graph that `provider` (e.g. WebGpuExecutionProvider) did not take. */
export function fallbacks(placement: Placement, provider: string): Fallback {
  const others = Object.keys(placement.counts).filter((name) => name !== provider);
  const nodes = others.flatMap((name) => placement.nodes[name]).filter((node) => !node.op.startsWith('Memcpy'));
  const copies = Object.values(placement.nodes).flat().filter((node) => node.op.startsWith('Memcpy')).length;
  const listed = others.reduce((sum, name) => sum + placement.counts[name], 0);
  const byOp = new Map<string, number>();
  for (const node of nodes) byOp.set(node.op, (byOp.get(node.op) ?? 0) + 1);
  return { count: listed - others.flatMap((name) => placement.nodes[name]).filter((node) => node.op.startsWith('Memcpy')).length, nodes, ops: [...byOp].sort((a, b) => b[1] - a[1]), copies };
}
