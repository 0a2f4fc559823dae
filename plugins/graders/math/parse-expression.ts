import type { StepBudget } from './budget.ts';
import type { Expr, FunctionName } from './expression.ts';
import { parseDecimal } from './rational.ts';
import { tokenize, type Token } from './tokens.ts';
import { Unparseable } from './unparseable.ts';

const FUNCTIONS = new Set<FunctionName>(['sin', 'cos', 'tan', 'sec', 'csc', 'cot', 'arcsin', 'arccos', 'arctan', 'sinh', 'cosh', 'tanh', 'ln', 'exp']);
const GREEK = new Set([
  'alpha', 'beta', 'gamma', 'delta', 'epsilon', 'varepsilon', 'zeta', 'eta', 'theta', 'vartheta', 'iota', 'kappa', 'lambda', 'mu',
  'nu', 'xi', 'rho', 'sigma', 'tau', 'upsilon', 'phi', 'varphi', 'chi', 'psi', 'omega',
  'Gamma', 'Delta', 'Theta', 'Lambda', 'Xi', 'Sigma', 'Phi', 'Psi', 'Omega',
]);
const TIMES = new Set(['cdot', 'times', 'ast']);
const ATOM_COMMANDS = new Set(['frac', 'sqrt', 'binom', 'pi', 'infty', 'log', 'lfloor', 'lceil', ...FUNCTIONS, ...GREEK]);

const TEN: Expr = { kind: 'number', value: { n: 10n, d: 1n }, decimal: false };
const TWO: Expr = { kind: 'number', value: { n: 2n, d: 1n }, decimal: false };

/**
 * Parses the arithmetic subset of LaTeX answers: numbers, letters as variables, + - * / ^, implicit
 * multiplication, \frac (and \frac12), 2^10 = 1024, \sqrt[n]{}, \binom, !, |x|, \pi, e, \infty, trig/log functions.
 * Anything else throws Unparseable. Every token and every level of nesting is charged to `budget`.
 */
export function parseExpression(latex: string, budget: StepBudget): Expr {
  return new ExpressionParser(tokenize(latex, budget), budget).parseAll();
}

class ExpressionParser {
  private at = 0;
  private depth = 0;

  constructor(
    private readonly tokens: Token[],
    private readonly budget: StepBudget,
  ) {}

  parseAll(): Expr {
    if (this.tokens.length === 0) throw new Unparseable('empty expression');
    const expr = this.expression();
    if (this.at < this.tokens.length) throw new Unparseable(`unexpected ${this.tokens[this.at].raw}`);
    return expr;
  }

  private expression(): Expr {
    return this.nested(() => {
      const terms = [{ negative: false, expr: this.term() }];
      while (this.isSymbol('+') || this.isSymbol('-')) {
        const negative = this.next().raw === '-';
        terms.push({ negative, expr: this.term() });
      }
      return terms.length === 1 ? terms[0].expr : { kind: 'sum', terms };
    });
  }

  private term(): Expr {
    const factors = [{ divide: false, expr: this.unary() }];
    for (;;) {
      if (this.isSymbol('*') || this.isCommand(TIMES)) {
        this.next();
        factors.push({ divide: false, expr: this.unary() });
      } else if (this.isSymbol('/') || this.isCommand(new Set(['div']))) {
        this.next();
        factors.push({ divide: true, expr: this.unary() });
      } else if (this.startsAtom()) {
        if (this.peek()?.kind === 'number' && this.tokens[this.at - 1]?.kind === 'number') throw new Unparseable('two numbers side by side');
        factors.push({ divide: false, expr: this.power() });
      } else {
        break;
      }
    }
    return factors.length === 1 ? factors[0].expr : { kind: 'product', factors };
  }

  private unary(): Expr {
    if (this.isSymbol('-')) {
      this.next();
      return this.nested(() => ({ kind: 'negate', arg: this.unary() }));
    }
    if (this.isSymbol('+')) {
      this.next();
      return this.nested(() => this.unary());
    }
    return this.power();
  }

  private power(): Expr {
    const base = this.factorials(this.nested(() => this.atom()));
    if (!this.isSymbol('^')) return base;
    this.next();
    return this.factorials({ kind: 'power', base, exponent: this.superscript() });
  }

  /** Unlike TeX, `2^10` is 2¹⁰: a bare number after ^ is taken whole, as models mean it. */
  private superscript(): Expr {
    const negative = this.isSymbol('-');
    if (negative || this.isSymbol('+')) this.next();
    const exponent = this.peek()?.kind === 'number' ? this.numberLiteral(this.next().raw) : this.argument();
    return negative ? { kind: 'negate', arg: exponent } : exponent;
  }

  /** One TeX argument: a braced group, or a single character or command, so `\frac12` is 1/2 and `\sqrt2x` is √2·x. */
  private argument(): Expr {
    if (this.isSymbol('{')) return this.group('{', '}');
    const digit = this.takeFirstDigit();
    if (digit !== undefined) return this.numberLiteral(digit);
    return this.nested(() => this.atom());
  }

  /** TeX reads one character as an argument: of the number token `123` that is `1`, leaving `23` to come next. */
  private takeFirstDigit(): string | undefined {
    const token = this.peek();
    if (token?.kind !== 'number' || token.raw.length === 1) return undefined;
    const rest = token.raw.slice(1);
    if (!/^\.?\d/.test(rest)) throw new Unparseable(`cannot split ${token.raw} into TeX arguments`);
    this.tokens[this.at] = { kind: 'number', raw: rest };
    this.budget.tick();
    return token.raw[0];
  }

  private factorials(expr: Expr): Expr {
    let out = expr;
    for (let count = 1; this.isSymbol('!'); count++) {
      this.next();
      this.budget.enter(this.depth + count);
      out = { kind: 'factorial', arg: out };
    }
    return out;
  }

  private atom(): Expr {
    const token = this.next();
    switch (token.kind) {
      case 'number':
        return this.numberLiteral(token.raw);
      case 'letter':
        return this.letter(token.raw);
      case 'command':
        return this.command(token.raw);
      case 'symbol':
        if (token.raw === '(') return this.rest(')');
        if (token.raw === '[') return this.rest(']');
        if (token.raw === '{') return this.rest('}');
        if (token.raw === '|') return { kind: 'call', fn: 'abs', arg: this.rest('|') };
        throw new Unparseable(`unexpected ${token.raw}`);
    }
  }

  private numberLiteral(raw: string): Expr {
    const value = parseDecimal(raw);
    if (!value) throw new Unparseable(`bad number ${raw}`);
    return { kind: 'number', value, decimal: /[.eE]/.test(raw) };
  }

  private letter(raw: string): Expr {
    if (this.isSymbol('_')) return { kind: 'variable', name: `${raw}_${this.subscript()}` };
    return raw === 'e' ? { kind: 'constant', name: 'e' } : { kind: 'variable', name: raw };
  }

  private command(name: string): Expr {
    if (name === 'frac') return { kind: 'product', factors: [{ divide: false, expr: this.argument() }, { divide: true, expr: this.argument() }] };
    if (name === 'sqrt') {
      const index = this.isSymbol('[') ? this.group('[', ']') : TWO;
      return { kind: 'root', index, arg: this.argument() };
    }
    if (name === 'binom') return { kind: 'binomial', n: this.argument(), k: this.argument() };
    if (name === 'pi') return { kind: 'constant', name: 'pi' };
    if (name === 'infty') return { kind: 'constant', name: 'infinity' };
    if (name === 'lfloor') return { kind: 'call', fn: 'floor', arg: this.rest('rfloor', 'command') };
    if (name === 'lceil') return { kind: 'call', fn: 'ceil', arg: this.rest('rceil', 'command') };
    if (GREEK.has(name)) return { kind: 'variable', name: this.isSymbol('_') ? `\\${name}_${this.subscript()}` : `\\${name}` };
    if (name === 'log' || FUNCTIONS.has(name as FunctionName)) return this.functionCall(name);
    throw new Unparseable(`unsupported command \\${name}`);
  }

  /** `\sin x`, `\sin(x)`, `\sin^2 x`, `\log_2 8`: without parentheses the argument runs to the next +, -, * or /. */
  private functionCall(name: string): Expr {
    let base = TEN;
    if (name === 'log' && this.isSymbol('_')) {
      this.next();
      base = this.argument();
    }
    let exponent: Expr | undefined;
    if (this.isSymbol('^')) {
      this.next();
      exponent = this.superscript();
    }
    const arg = this.isSymbol('(') ? this.group('(', ')') : this.implicitProduct();
    const call: Expr = name === 'log' ? { kind: 'log', base, arg } : { kind: 'call', fn: name as FunctionName, arg };
    return exponent ? { kind: 'power', base: call, exponent } : call;
  }

  private implicitProduct(): Expr {
    const factors = [{ divide: false, expr: this.power() }];
    while (this.startsAtom() && !this.startsFunction() && this.peek()?.kind !== 'number') factors.push({ divide: false, expr: this.power() });
    return factors.length === 1 ? factors[0].expr : { kind: 'product', factors };
  }

  private subscript(): string {
    this.next();
    const digit = this.takeFirstDigit();
    if (digit !== undefined) return digit;
    const first = this.next();
    if (first.kind !== 'symbol' || first.raw !== '{') return first.raw;
    const raw: string[] = [];
    for (let depth = 1; ; ) {
      const token = this.next();
      if (token.kind === 'symbol' && token.raw === '{') depth++;
      if (token.kind === 'symbol' && token.raw === '}' && --depth === 0) return raw.join('');
      raw.push(token.kind === 'command' ? `\\${token.raw}` : token.raw);
    }
  }

  private group(open: string, close: string): Expr {
    this.expect(open, 'symbol');
    return this.rest(close);
  }

  private rest(close: string, kind: Token['kind'] = 'symbol'): Expr {
    const inner = this.expression();
    this.expect(close, kind);
    return inner;
  }

  private startsAtom(): boolean {
    const token = this.peek();
    if (!token) return false;
    if (token.kind === 'number' || token.kind === 'letter') return true;
    if (token.kind === 'symbol') return token.raw === '(' || token.raw === '{';
    return token.kind === 'command' && ATOM_COMMANDS.has(token.raw);
  }

  private startsFunction(): boolean {
    const token = this.peek();
    return token?.kind === 'command' && (token.raw === 'log' || FUNCTIONS.has(token.raw as FunctionName));
  }

  private nested<T>(parse: () => T): T {
    this.depth++;
    this.budget.enter(this.depth);
    try {
      return parse();
    } finally {
      this.depth--;
    }
  }

  private peek(): Token | undefined {
    return this.tokens[this.at];
  }

  private next(): Token {
    const token = this.tokens[this.at++];
    if (!token) throw new Unparseable('unexpected end of expression');
    this.budget.tick();
    return token;
  }

  private expect(raw: string, kind: Token['kind']): void {
    const token = this.next();
    if (token.kind !== kind || token.raw !== raw) throw new Unparseable(`expected ${raw}, found ${token.raw}`);
  }

  private isSymbol(raw: string): boolean {
    const token = this.peek();
    return token?.kind === 'symbol' && token.raw === raw;
  }

  private isCommand(names: Set<string>): boolean {
    const token = this.peek();
    return token?.kind === 'command' && names.has(token.raw);
  }
}
