import type { StepBudget } from './budget.ts';
import type { Expr, FunctionName } from './expression.ts';
import * as V from './value.ts';
import type { Value } from './value.ts';

const FLOAT_FUNCTIONS: Record<Exclude<FunctionName, 'abs' | 'floor' | 'ceil'>, (x: number) => number> = {
  sin: Math.sin,
  cos: Math.cos,
  tan: Math.tan,
  sec: (x) => 1 / Math.cos(x),
  csc: (x) => 1 / Math.sin(x),
  cot: (x) => 1 / Math.tan(x),
  arcsin: Math.asin,
  arccos: Math.acos,
  arctan: Math.atan,
  sinh: Math.sinh,
  cosh: Math.cosh,
  tanh: Math.tanh,
  ln: Math.log,
  exp: Math.exp,
};

/** Evaluates `expr` with its free variables taken from `env`; each node visited is charged to `budget`. */
export function evaluate(expr: Expr, env: ReadonlyMap<string, Value>, budget: StepBudget): Value {
  budget.tick();
  const at = (e: Expr): Value => evaluate(e, env, budget);
  switch (expr.kind) {
    case 'number':
      return V.exact(expr.value, expr.decimal);
    case 'constant':
      return V.float(expr.name === 'pi' ? Math.PI : expr.name === 'e' ? Math.E : Number.POSITIVE_INFINITY);
    case 'variable': {
      const value = env.get(expr.name);
      if (!value) throw new Error(`no value for variable ${expr.name}`);
      return value;
    }
    case 'negate':
      return V.negate(at(expr.arg));
    case 'sum':
      return expr.terms.reduce<Value>((total, term) => {
        const value = at(term.expr);
        return V.add(total, term.negative ? V.negate(value) : value);
      }, V.exact({ n: 0n, d: 1n }));
    case 'product':
      return expr.factors.reduce<Value>((total, factor) => {
        const value = at(factor.expr);
        return factor.divide ? V.divide(total, value) : V.multiply(total, value);
      }, V.exact({ n: 1n, d: 1n }));
    case 'power':
      return V.power(at(expr.base), at(expr.exponent));
    case 'root': {
      const index = at(expr.index);
      if (index.kind === 'exact' && index.q.d === 1n && index.q.n > 0n && index.q.n <= 64n) return V.root(at(expr.arg), Number(index.q.n));
      return V.power(at(expr.arg), V.divide(V.exact({ n: 1n, d: 1n }), index));
    }
    case 'log': {
      const x = V.toNumber(at(expr.arg));
      const b = V.toNumber(at(expr.base));
      return b > 0 && b !== 1 && x > 0 ? V.float(Math.log(x) / Math.log(b)) : V.NAN;
    }
    case 'call':
      return call(expr.fn, at(expr.arg));
    case 'factorial':
      return V.factorial(at(expr.arg), (cost) => budget.tick(cost));
    case 'binomial':
      return V.binomial(at(expr.n), at(expr.k), (cost) => budget.tick(cost));
  }
}

function call(fn: FunctionName, arg: Value): Value {
  if (fn === 'abs') return V.toNumber(arg) < 0 ? V.negate(arg) : arg;
  if (fn === 'floor' || fn === 'ceil') {
    if (arg.kind === 'exact') {
      const down = arg.q.n / arg.q.d - (arg.q.n < 0n && arg.q.n % arg.q.d !== 0n ? 1n : 0n);
      const up = arg.q.n % arg.q.d === 0n ? down : down + 1n;
      return V.exact({ n: fn === 'floor' ? down : up, d: 1n });
    }
    return V.float(fn === 'floor' ? Math.floor(arg.x) : Math.ceil(arg.x));
  }
  const x = V.toNumber(arg);
  const y = FLOAT_FUNCTIONS[fn](x);
  return Number.isFinite(y) || !Number.isFinite(x) ? V.float(y) : V.NAN;
}
