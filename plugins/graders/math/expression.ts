import type { Rational } from './rational.ts';

export type FunctionName =
  | 'sin' | 'cos' | 'tan' | 'sec' | 'csc' | 'cot'
  | 'arcsin' | 'arccos' | 'arctan' | 'sinh' | 'cosh' | 'tanh'
  | 'ln' | 'exp' | 'abs' | 'floor' | 'ceil';

/** A parsed math expression. Sums and products are flat lists, so long inputs never make deep trees. */
export type Expr =
  /** `decimal`: written with a point or exponent, so it may be a rounded value. */
  | { kind: 'number'; value: Rational; decimal: boolean }
  | { kind: 'constant'; name: 'pi' | 'e' | 'infinity' }
  | { kind: 'variable'; name: string }
  | { kind: 'negate'; arg: Expr }
  | { kind: 'sum'; terms: { negative: boolean; expr: Expr }[] }
  | { kind: 'product'; factors: { divide: boolean; expr: Expr }[] }
  | { kind: 'power'; base: Expr; exponent: Expr }
  | { kind: 'root'; index: Expr; arg: Expr }
  | { kind: 'log'; base: Expr; arg: Expr }
  | { kind: 'call'; fn: FunctionName; arg: Expr }
  | { kind: 'factorial'; arg: Expr }
  | { kind: 'binomial'; n: Expr; k: Expr };

export function freeVariables(expr: Expr, into: Set<string> = new Set()): Set<string> {
  switch (expr.kind) {
    case 'variable':
      into.add(expr.name);
      break;
    case 'negate':
    case 'call':
    case 'factorial':
      freeVariables(expr.arg, into);
      break;
    case 'sum':
      for (const term of expr.terms) freeVariables(term.expr, into);
      break;
    case 'product':
      for (const factor of expr.factors) freeVariables(factor.expr, into);
      break;
    case 'power':
      freeVariables(expr.base, into);
      freeVariables(expr.exponent, into);
      break;
    case 'root':
      freeVariables(expr.index, into);
      freeVariables(expr.arg, into);
      break;
    case 'log':
      freeVariables(expr.base, into);
      freeVariables(expr.arg, into);
      break;
    case 'binomial':
      freeVariables(expr.n, into);
      freeVariables(expr.k, into);
      break;
    case 'number':
    case 'constant':
      break;
  }
  return into;
}
