import { Rng } from '../../../core/rng.ts';

/** One gold/pred pair of the grader benchmark, with the family it was drawn from. */
export interface GraderLine {
  family: string;
  gold: string;
  pred: string;
}

const TOKENS = [
  '0', '1', '2', '3', '7', '12', '-', '+', '*', '/', '^', '_', '!', '=', ',', ';', ':', '.', '%', '\\%', '|', "'", '<', '>', '&',
  '(', ')', '[', ']', '{', '}', '\\{', '\\}', '$', '$$', '\\(', '\\)', '\\[', '\\]', '\\\\', '\\', ' ', '  ', '\n',
  'x', 'y', 'n', 'e', 'i', 'AB', '\\pi', '\\infty', '\\frac', '\\dfrac', '\\sqrt', '\\binom', '\\sin', '\\log_2', '\\ln',
  '\\cdot', '\\times', '\\pm', '\\cup', '\\le', '\\ge', '\\in', '\\left(', '\\right)', '\\left\\{', '\\right\\}',
  '\\boxed{', '\\fbox{', '\\boxed', '\\text{', '\\mathrm{', '\\emptyset', '\\begin{pmatrix}', '\\end{pmatrix}',
  '\\begin{array}{cc}', '\\end{array}', '^\\circ', '\\,', '\\!', '{,}', '\u2009', '\u2212', '\u03c0', '\u221a',
  'the', 'answer', 'is', 'Final Answer:', 'The final answer is', 'cm', 'dollars', 'and', 'or', 'Monday', '1e9', '0.333',
];

const GOLDS = [
  '5', '-5', '\\frac{3}{4}', '0.75', '28\\%', '1000', '(1, 2)', '\\{1, 2\\}', '[0, 1)', 'x^2+1', '2\\sqrt{3}', '\\pi', 'x = 3', 'x > 3',
  '\\text{Monday}', '7:32', '\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}', '2x + 3y = 6', '-1 < x \\le 2', '3.75',
];

const pick = <T>(rng: Rng, items: readonly T[]): T => items[rng.int(items.length)];

function randomLatex(rng: Rng, tokens: number): string {
  const out: string[] = [];
  for (let i = 0; i < tokens; i++) out.push(pick(rng, TOKENS));
  return out.join(rng.bernoulli(0.3) ? ' ' : '');
}

/** Inputs written to hurt: deep nesting, unclosed groups, megabytes, thousands of boxes, delimiters and operators. */
const ADVERSARIAL: readonly [string, (rng: Rng) => string][] = [
  ['deep braces', (rng) => `\\boxed{${'{'.repeat(1000 + rng.int(50_000))}1${'}'.repeat(rng.int(50_000))}}`],
  ['deep parentheses', (rng) => { const n = 100 + rng.int(20_000); return `\\boxed{${'('.repeat(n)}1${')'.repeat(n)}}`; }],
  ['nested fractions', (rng) => { const n = 10 + rng.int(3000); return `\\boxed{${'\\frac{1}{'.repeat(n)}2${'}'.repeat(n)}}`; }],
  ['nested text', (rng) => { const n = 10 + rng.int(3000); return `\\boxed{${'\\text{'.repeat(n)}x${'}'.repeat(n)}}`; }],
  ['unclosed box', (rng) => `\\boxed{${randomLatex(rng, 50 + rng.int(5000))}`],
  ['many boxes', (rng) => '\\boxed{7}, '.repeat(1 + rng.int(20_000))],
  ['many dollars', (rng) => '$'.repeat(1 + rng.int(100_000))],
  ['escaped dollars', (rng) => '\\$'.repeat(1 + rng.int(100_000)) + '5'],
  ['many phrases', (rng) => 'the answer is '.repeat(1 + rng.int(20_000))],
  ['long sum', (rng) => `\\boxed{${'1+'.repeat(rng.int(100_000))}1}`],
  ['power tower', (rng) => `\\boxed{${'2^{'.repeat(1 + rng.int(60))}2${'}'.repeat(60)}}`],
  ['factorials', (rng) => `\\boxed{${1 + rng.int(5000)}${'!'.repeat(1 + rng.int(5000))}}`],
  ['huge number', (rng) => `\\boxed{${'9'.repeat(1 + rng.int(200_000))}}`],
  ['big set', (rng) => `\\boxed{\\{${Array.from({ length: 1 + rng.int(3000) }, (_, i) => i).join(',')}\\}}`],
  ['big matrix', (rng) => { const n = 1 + rng.int(60); const row = Array(n).fill('x').join(' & '); return `\\boxed{\\begin{pmatrix}${Array(n).fill(row).join(' \\\\ ')}\\end{pmatrix}}`; }],
  ['backslashes', (rng) => '\\'.repeat(1 + rng.int(100_000))],
  ['prose', (rng) => 'so we keep going and the value is large. '.repeat(1 + rng.int(20_000))],
  // Math-Verify's rules (math-full) read more of a response: runs of plain digits and operators, spans listed with
  // "and", every box of a span, `\approx` chains, decimal commas.
  ['plain digits', (rng) => `${pick(rng, ['1 ', '1+', '2,5 ', '(1', '- 1', '1.'])}`.repeat(1 + rng.int(50_000)) + pick(rng, ['x', '', '.', ' apples'])],
  ['listed spans', (rng) => '$1$ and '.repeat(1 + rng.int(20_000))],
  ['boxes in a span', (rng) => `$${'\\boxed{1} '.repeat(1 + rng.int(5000))}$`],
  ['approx chain', (rng) => `$x ${'\\approx 1 '.repeat(1 + rng.int(20_000))}$`],
  ['assignments', (rng) => `\\boxed{${Array.from({ length: 1 + rng.int(3000) }, (_, i) => `a_{${i}}=${i}`).join(', ')}}`],
  // Worked out before comparing under Math-Verify's rules: sums and products of matrices, a gold inequality's set.
  ['matrix sums', (rng) => `\\boxed{${Array(1 + rng.int(2000)).fill('\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}').join(' + ')}}`],
  ['matrix products', (rng) => `\\boxed{${Array(1 + rng.int(500)).fill('\\begin{pmatrix} 1 & 1 \\\\ 1 & 1 \\end{pmatrix}').join('')}}`],
  ['unclosed matrices', (rng) => `\\boxed{2${'\\begin{pmatrix} 1 & '.repeat(1 + rng.int(20_000))}}`],
  ['many intervals', (rng) => `\\boxed{${Array.from({ length: 1 + rng.int(3000) }, (_, i) => `(${2 * i}, ${2 * i + 1})`).join(' \\cup ')}}`],
];

/** About a megabyte of reasoning before a final answer; a few of these go into every run. */
const MEGABYTE = (rng: Rng): string => `${randomLatex(rng, 200)} ${'Let us think about it step by step. '.repeat(30_000)}\\boxed{${pick(rng, GOLDS)}}`;

/**
 * `count` gold/pred pairs from `seed`: about half random LaTeX-like token soup (in a box, in `$…$`, or bare), a
 * third drawn from the adversarial families, the rest real answers in the formats graded, and `megabytes` lines of
 * a megabyte each.
 */
export function graderBenchLines(count: number, seed: number, megabytes = Math.min(20, Math.floor(count / 500))): GraderLine[] {
  const rng = new Rng(seed);
  const lines: GraderLine[] = [];
  for (let i = 0; i < count; i++) {
    const gold = pick(rng, GOLDS);
    if (i < megabytes) {
      lines.push({ family: 'megabyte', gold, pred: MEGABYTE(rng) });
      continue;
    }
    const draw = rng.next();
    if (draw < 0.5) {
      const soup = randomLatex(rng, 1 + rng.int(400));
      const pred = pick(rng, [soup, `\\boxed{${soup}}`, `$${soup}$`, `The final answer is ${soup}`]);
      lines.push({ family: 'random', gold: rng.bernoulli(0.2) ? randomLatex(rng, 1 + rng.int(20)) : gold, pred });
    } else if (draw < 0.83) {
      const [family, make] = pick(rng, ADVERSARIAL);
      lines.push({ family, gold, pred: make(rng) });
    } else {
      lines.push({ family: 'answer', gold, pred: pick(rng, [`\\boxed{${gold}}`, `So the answer is $${gold}$.`, `\\[${pick(rng, GOLDS)}\\]`, gold]) });
    }
  }
  return lines;
}
