import onnxProto from 'onnx-proto';
import { fail } from '../../core/errors.ts';

const { onnx } = onnxProto;

export type DType = 'float32' | 'float16' | 'float64' | 'int64' | 'int32' | 'bool' | 'uint8';
export type Dim = number | string;
export type TypedArray = Float32Array | Float64Array | Uint16Array | BigInt64Array | Int32Array | Uint8Array;

const ONNX_TYPE: Record<DType, number> = {
  float32: 1, uint8: 2, int32: 6, int64: 7, bool: 9, float16: 10, float64: 11,
};

/** A named tensor flowing through a graph. `rank` is tracked when known, for gradient rules. */
export interface Value {
  readonly name: string;
  readonly dtype: DType;
}

export type AttrValue =
  | number
  | string
  | number[]
  | string[]
  | { float: number }
  | { floats: number[] }
  | { tensor: ConstTensor }
  | { graph: Graph };

export interface ConstTensor {
  dtype: DType;
  dims: number[];
  data: TypedArray;
}

/** Where an external initializer's bytes are: a whole file of exactly its size. */
export interface ExternalTensor {
  dtype: DType;
  dims: number[];
  location: string;
}

interface ValueInfo {
  name: string;
  dtype: DType;
  shape?: Dim[];
}

export interface OpOptions {
  domain?: string;
  outputs?: number;
  /** Output dtypes; defaults to the first input's dtype. */
  dtypes?: DType[];
  name?: string;
}

export const MS_DOMAIN = 'com.microsoft';

/** Value names are unique across a graph. */
interface Namespace {
  names: Set<string>;
  counter: number;
  usesMs: boolean;
  /** Values renamed when published as outputs: later uses of the old name read the new one. */
  aliases: Map<string, string>;
}

/**
 * Builds one ONNX graph from TypeScript. Values are plain `{ name, dtype }` handles; `op` appends a node.
 * Encoding goes through onnx-proto so the wire format is the standard one.
 */
export class Graph {
  private readonly nodes: object[] = [];
  private readonly inputs: ValueInfo[] = [];
  private readonly outputs: ValueInfo[] = [];
  private readonly initializers: Array<{ name: string; tensor: ConstTensor | ExternalTensor }> = [];

  private readonly scope: Namespace = { names: new Set(), counter: 0, usesMs: false, aliases: new Map() };

  constructor(readonly name = 'ludus') {}

  private fresh(hint: string): string {
    const { names } = this.scope;
    let candidate = `${hint}_${this.scope.counter++}`;
    while (names.has(candidate)) candidate = `${hint}_${this.scope.counter++}`;
    names.add(candidate);
    return candidate;
  }

  private claim(name: string): string {
    if (this.scope.names.has(name)) fail('GRAPH_INVALID', `value name "${name}" is used twice in graph ${this.name}`);
    this.scope.names.add(name);
    return name;
  }

  input(name: string, dtype: DType, shape: Dim[]): Value {
    this.inputs.push({ name: this.claim(name), dtype, shape });
    return { name, dtype };
  }

  initializer(name: string, tensor: ConstTensor): Value {
    this.initializers.push({ name: this.claim(name), tensor });
    return { name, dtype: tensor.dtype };
  }

  /**
   * An initializer whose bytes stay outside the protobuf (which cannot exceed 2 GB): ONNX external data in a file
   * named `location`, which the session is handed from memory (`SessionOptions.externalData`).
   */
  externalInitializer(name: string, dtype: DType, dims: number[], location: string): Value {
    this.initializers.push({ name: this.claim(name), tensor: { dtype, dims, location } });
    return { name, dtype };
  }

  private constant(tensor: ConstTensor, hint: string): Value {
    const name = this.fresh(hint);
    this.initializers.push({ name, tensor });
    return { name, dtype: tensor.dtype };
  }

  /** A small constant baked into the graph. */
  const(data: number[] | TypedArray, dims: number[], dtype: DType = 'float32', hint = 'const'): Value {
    return this.constant({ dtype, dims, data: toTyped(data, dtype) }, hint);
  }

  scalar(value: number, dtype: DType): Value {
    return this.const([value], [], dtype, 'scalar');
  }

  ints(values: number[]): Value {
    return this.const(values, [values.length], 'int64', 'ints');
  }

  op(opType: string, inputs: Array<Value | null>, attrs: Record<string, AttrValue> = {}, options: OpOptions = {}): Value[] {
    const count = options.outputs ?? 1;
    const first = inputs.find((v): v is Value => v !== null);
    const outputs: Value[] = [];
    for (let i = 0; i < count; i++) {
      const dtype = options.dtypes?.[i] ?? first?.dtype ?? 'float32';
      outputs.push({ name: this.fresh(opType.toLowerCase()), dtype });
    }
    if (options.domain === MS_DOMAIN) this.scope.usesMs = true;
    this.nodes.push({
      opType,
      domain: options.domain ?? '',
      name: options.name ?? this.fresh(`n_${opType}`),
      input: inputs.map((v) => (v === null ? '' : this.resolve(v.name))),
      output: outputs.map((v) => v.name),
      attribute: Object.entries(attrs).map(([key, value]) => encodeAttr(key, value)),
    });
    return outputs;
  }

  /** Single-output convenience over `op`. */
  op1(opType: string, inputs: Array<Value | null>, attrs: Record<string, AttrValue> = {}, options: OpOptions = {}): Value {
    return this.op(opType, inputs, attrs, options)[0];
  }

  /**
   * Marks a value as a graph output under a public name. A value a node of this graph produces is renamed in place
   * (its producer and consumers), so onnxruntime writes it straight into a caller's preallocated output; an input or
   * an initializer is published through an Identity.
   */
  output(value: Value, name: string, shape?: Dim[], dtype: DType = value.dtype): Value {
    const current = this.resolve(value.name);
    if (current !== name) {
      if (this.producerOf(current) && !this.outputs.some((o) => o.name === current)) {
        this.claim(name);
        for (const node of this.nodes as Array<{ input: string[]; output: string[] }>) {
          node.input = node.input.map((n) => (n === current ? name : n));
          node.output = node.output.map((n) => (n === current ? name : n));
        }
        this.scope.aliases.set(current, name);
      } else {
        this.nodes.push({ opType: 'Identity', domain: '', name: this.fresh('n_Identity'), input: [current], output: [this.claim(name)], attribute: [] });
      }
    }
    this.outputs.push({ name, dtype, shape });
    return { name, dtype };
  }

  private resolve(name: string): string {
    let current = name;
    while (this.scope.aliases.has(current)) current = this.scope.aliases.get(current)!;
    return current;
  }

  private producerOf(name: string): object | undefined {
    return (this.nodes as Array<{ output: string[] }>).find((node) => node.output.includes(name));
  }

  get nodeCount(): number {
    return this.nodes.length;
  }

  toBytes(opset = 23, irVersion = 11): Uint8Array {
    const model = onnx.ModelProto.create({
      irVersion,
      producerName: 'ludus',
      opsetImport: [{ domain: '', version: opset }, ...(this.scope.usesMs ? [{ domain: MS_DOMAIN, version: 1 }] : [])],
      graph: this.toProto(),
    });
    return onnx.ModelProto.encode(model).finish();
  }

  /** The GraphProto fields, for the model or for a branch attribute. */
  toProto(): object {
    return {
      name: this.name,
      node: this.nodes,
      input: this.inputs.map(valueInfo),
      output: this.outputs.map(valueInfo),
      initializer: this.initializers.map(({ name, tensor }) => tensorProto(name, tensor)),
    };
  }
}

function valueInfo(info: ValueInfo): object {
  return {
    name: info.name,
    type: {
      tensorType: {
        elemType: ONNX_TYPE[info.dtype],
        ...(info.shape ? { shape: { dim: info.shape.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d })) } } : {}),
      },
    },
  };
}

function encodeAttr(name: string, value: AttrValue): object {
  const { AttributeType } = onnx.AttributeProto;
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) return { name, type: AttributeType.FLOAT, f: value };
    return { name, type: AttributeType.INT, i: value };
  }
  if (typeof value === 'string') return { name, type: AttributeType.STRING, s: new TextEncoder().encode(value) };
  if (Array.isArray(value)) {
    if (value.length > 0 && typeof value[0] === 'string') {
      return { name, type: AttributeType.STRINGS, strings: (value as string[]).map((s) => new TextEncoder().encode(s)) };
    }
    return { name, type: AttributeType.INTS, ints: value as number[] };
  }
  if ('graph' in value) return { name, type: AttributeType.GRAPH, g: value.graph.toProto() };
  if ('float' in value) return { name, type: AttributeType.FLOAT, f: value.float };
  if ('floats' in value) return { name, type: AttributeType.FLOATS, floats: value.floats };
  return { name, type: AttributeType.TENSOR, t: tensorProto('', value.tensor) };
}

const BYTES_PER_ELEMENT: Record<DType, number> = { float32: 4, float16: 2, float64: 8, int64: 8, int32: 4, bool: 1, uint8: 1 };

function tensorProto(name: string, tensor: ConstTensor | ExternalTensor): object {
  if ('location' in tensor) {
    const bytes = tensor.dims.reduce((a, b) => a * b, 1) * BYTES_PER_ELEMENT[tensor.dtype];
    return {
      name,
      dims: tensor.dims,
      dataType: ONNX_TYPE[tensor.dtype],
      dataLocation: onnx.TensorProto.DataLocation.EXTERNAL,
      externalData: [
        { key: 'location', value: tensor.location },
        { key: 'offset', value: '0' },
        { key: 'length', value: String(bytes) },
      ],
    };
  }
  return {
    name,
    dims: tensor.dims,
    dataType: ONNX_TYPE[tensor.dtype],
    rawData: new Uint8Array(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength),
  };
}

export function toTyped(data: number[] | TypedArray, dtype: DType): TypedArray {
  if (!Array.isArray(data)) return data;
  switch (dtype) {
    case 'float32': return Float32Array.from(data);
    case 'float64': return Float64Array.from(data);
    case 'int64': return BigInt64Array.from(data.map((x) => BigInt(x)));
    case 'int32': return Int32Array.from(data);
    case 'bool':
    case 'uint8': return Uint8Array.from(data);
    case 'float16': return Uint16Array.from(data);
  }
}
