import { describe, expect, it } from 'vitest';
import { DEFAULT_GRADE_LIMITS } from '../../../../plugins/graders/math/budget.ts';
import { FULL_EXTRACTION, STRICT_EXTRACTION } from '../../../../plugins/graders/math/extract.ts';
import { gradeMath } from '../../../../plugins/graders/math/grade-math.ts';

const LIMITS = { ...DEFAULT_GRADE_LIMITS, timeMs: 600_000 };
/** `math-full`: every extraction step and Math-Verify's rules. */
const full = (gold: string, pred: string) => gradeMath(gold, pred, { extraction: FULL_EXTRACTION, rules: 'math-verify', limits: LIMITS });
/** The same extraction under ludus's own rules. */
const fullStrictRules = (gold: string, pred: string) => gradeMath(gold, pred, { extraction: FULL_EXTRACTION, limits: LIMITS });
/** `math`: the RL reward. */
const strict = (gold: string, pred: string) => gradeMath(gold, pred, { extraction: STRICT_EXTRACTION, limits: LIMITS });

type Case = [gold: string, pred: string, correct: boolean];

/** Each case graded by math-full; `strictToo` says whether `math` (boxed only, ludus's rules) gives the same verdict. */
function holds(cases: Case[]): void {
  it.each(cases)('should grade gold %j against %j as %s', (gold, pred, correct) => {
    expect(full(gold, pred).correct).toBe(correct);
  });
}

describe('Math-Verify’s rules (math-full)', () => {
  describe('having a decimal comma in plain text', () => {
    holds([
      ['2.5', 'It takes 2,5 hours.', true],
      ['0.125', 'Final answer: 0,125', true],
      ['2.5', 'It takes 2,6 hours.', false],
      ['4500', 'The answer is 4,500', true],
      ['4.5', 'The answer is 4,500', false],
      ['1000000', '1 000 000', true],
      ['6.25', '6,25', true],
    ]);

    it('should leave a comma in math mode a separator, as Math-Verify does', () => {
      expect(full('2.5', '$2,5$').correct).toBe(false);
      expect(full('2.5', '\\boxed{2,5}').correct).toBe(false);
    });

    it('should not read decimal commas under ludus’s rules', () => {
      expect(fullStrictRules('2.5', 'It takes 2,5 hours.').correct).toBe(false);
    });
  });

  describe('having relations', () => {
    holds([
      ['a \\geq 7', '$a >= 7$', true],
      ['a \\ge 7', '$a \\geqslant 7$', true],
      ['m \\neq 1', '$m != 1$', true],
      ['m \\ne 1', '$\\boxed{m \\neq 1}$', true],
      ['m \\neq 1', '$m \\neq 2$', false],
      ['k < 3', '$-k > -3$', true],
      ['k \\le 3', '$3 \\ge k$', true],
      ['k < 3', '$-k < -3$', false],
      ['k < 3', '$2k < 6$', false],
      ['2 \\le s < 5', '$s \\in [2, 5)$', true],
      ['2 \\le s < 5', '$5 > s \\ge 2$', false],
      ['2 \\le s < 5', '$2 \\le s < 5$', true],
      ['x < 0 \\text{ or } x > 4', '$(-\\infty, 0) \\cup (4, \\infty)$', false],
      ['x < 0 \\text{ or } x > 4', '$x > 4$ or $x < 0$', true],
    ]);

    it('should keep ludus’s own reading of a chain written downwards under its rules', () => {
      expect(strict('2 \\le s < 5', '\\boxed{5 > s \\ge 2}').correct).toBe(true);
      expect(strict('m \\neq 1', '\\boxed{m != 1}').correct).toBe(false);
    });
  });

  describe('having labelled answers', () => {
    holds([
      ['(3, 8)', '$(u, v) = (3, 8)$', true],
      ['(3, 8)', '$p = 3, q = 8$', true],
      ['(3, 8)', '$p = 8, q = 3$', false],
      ['(1, 2), (5, 6)', '$m = 1, n = 2; m = 5, n = 6$', true],
      ['p = 3, q = 8', '$q = 8, p = 3$', true],
      ['3:4', '$BD:DC = 3:4$', true],
      ['12', '$\\boxed{XY = 12}$', true],
      ['12', '$XY = 13$', false],
    ]);
  });

  describe('having several boxes', () => {
    holds([
      ['\\{4, 9\\}', '\\boxed{4}\\boxed{9}', true],
      ['4', '$\\boxed{9}$ \\quad $\\boxed{4}$', true],
      ['4, 9', '$\\boxed{9}$ \\quad $\\boxed{4}$', false],
      ['4, 9', '$\\boxed{9}$, $\\boxed{4}$', true],
      ['4, 9', '$\\boxed{9} \\text{ or, after another look at the second case, } \\boxed{4}$', true],
      ['4, 9', '\\boxed{9} or $\\boxed{4}$', false],
      ['4, 9', '\\boxed{4}\\boxed{10}', false],
      ['(1, 0), (0, 1)', '\\boxed{(1, 0)} and \\boxed{(0, 1)}', true],
      ['9', '\\boxed{4} is too small: checking the sum of digits once more gives \\boxed{9}', false],
      ['9', '\\boxed{4} is too small: checking the sum of digits once again gives \\boxed{9}', true],
      ['7', '$\\boxed{7 \\text{ km}}$', true],
    ]);

    it('should keep a box a long sentence away out of the answer, and join one a short clause with a comma away', () => {
      expect(full('9', 'We try \\boxed{4} first. That fails the second condition of the problem, so we go back and find \\boxed{9}.').correct).toBe(true);
      expect(full('9', 'We try \\boxed{4} first. That fails the second condition, so we go back and find \\boxed{9}.').correct).toBe(false);
    });

    it('should join only separated boxes under ludus’s rules', () => {
      expect(strict('4, 9', '\\boxed{4}\\boxed{9}').correct).toBe(false);
      expect(strict('4, 9', '\\boxed{4}, \\boxed{9}').correct).toBe(true);
    });
  });

  describe('having unordered collections', () => {
    holds([
      ['\\{(0, 1), (2, 3)\\}', '$\\{(2, 3), (0, 1)\\}$', true],
      ['-4, 4', '$\\boxed{4, -4, 4}$', true],
      ['-4, -4, 4', '$4, -4$', true],
      ['\\{5, 6\\}', '$(6, 5)$', true],
      ['(5, 6)', '$\\{5, 6\\}$', true],
      ['(5, 6)', '$\\{6, 5\\}$', false],
      ['(5, 6)', '$[5, 6]$', false],
      ['x = 2, x = -3', '$x = -3$ or $x = 2$', true],
      ['x = 2, x = -3', '$x = -3$', false],
    ]);

    it('should count repeats and keep tuples ordered under ludus’s rules', () => {
      expect(strict('-4, 4', '\\boxed{4, -4, 4}').correct).toBe(false);
      expect(strict('\\{5, 6\\}', '\\boxed{(6, 5)}').correct).toBe(false);
    });
  });

  describe('having equations', () => {
    holds([
      ['3x - y = 2', '$6x - 2y = 4$', true],
      ['3x - y = 2', '$y - 3x + 2 = 0$', true],
      ['3x - y = 2', '$6x - 2y = 2$', false],
      ['y = -2x + 7', '$2x + y - 7 = 0$', true],
      ['x^2 + y^2 = 9', '$2x^2 + 2y^2 - 18 = 0$', true],
      ['z = 4', '$3z = 12$', false],
      ['z = 4', '$z = 4$', true],
      ['y = 3x', '$2y = 6x$', true],
      ['56', '$7 \\times 8 = 56$', true],
      ['56', '$T = 7 \\times 8 = 56$', true],
    ]);

    it('should compare equations side by side only under ludus’s rules', () => {
      expect(strict('3x - y = 2', '\\boxed{6x - 2y = 4}').correct).toBe(false);
    });
  });

  describe('having long answers', () => {
    holds([
      ['3', 'The sum is $1 + 2 = 3$, so 3 is the answer.', true],
      ['17', 'We get $n = 16$ at first, but adding one, the result is 17.', true],
      ['\\frac{2}{3}', 'So $P = \\frac{2}{3} \\approx 0.667$.', true],
      ['0.667', '$P \\approx 0.667$', true],
      ['0.667', '$\\frac{2}{3} \\approx 0.667$', false],
      ['21', '<think>Is it 20? \\boxed{20}. No.</think>\nSo the answer is $\\boxed{21}$.', true],
    ]);
  });

  describe('having matrices', () => {
    const frac = '\\begin{pmatrix} \\frac{1}{3} & \\frac{2}{7} \\end{pmatrix}';
    const withWhole = '\\begin{pmatrix} 2 & \\frac{2}{7} \\end{pmatrix}';
    holds([
      [frac, '$\\begin{bmatrix} 0.333333 & 0.285714 \\end{bmatrix}$', true],
      [frac, '$\\begin{bmatrix} 0.33 & 0.29 \\end{bmatrix}$', false],
      [withWhole, '$\\begin{bmatrix} 2.0 & 0.285714 \\end{bmatrix}$', false],
      [withWhole, '$\\begin{bmatrix} 2 & 0.285714 \\end{bmatrix}$', true],
      ['\\begin{pmatrix} 2 & \\frac{1}{4} \\end{pmatrix}', '$\\begin{bmatrix} 2.0 & 0.25 \\end{bmatrix}$', true],
    ]);

    it('should match a whole number by its decimal in a matrix under ludus’s rules', () => {
      expect(strict(withWhole, '\\boxed{\\begin{bmatrix} 2.0 & 0.285714 \\end{bmatrix}}').correct).toBe(true);
    });
  });

  describe('having a whole number against a decimal', () => {
    holds([
      ['250', '$\\boxed{250.0}$', true],
      ['250', '$\\boxed{250.0000004}$', false],
      ['250.0000004', '$\\boxed{250}$', false],
      ['\\frac{2}{3}', '$\\boxed{0.666667}$', true],
      ['\\sqrt{5}', '$\\boxed{2.236068}$', true],
      ['\\mathbb{R}', '$\\boxed{(-\\infty, \\infty)}$', true],
    ]);

    it('should round the whole number too under ludus’s rules', () => {
      expect(strict('250', '\\boxed{250.0000004}').correct).toBe(true);
    });
  });

  describe('having words and percents', () => {
    holds([
      ['\\text{no}', '\\boxed{no}', true],
      ['\\text{yes}', '\\boxed{\\text{Yes}}', true],
      ['\\text{yes}', '\\boxed{no}', false],
      ['15', '\\boxed{\\text{15 marbles}}', false],
      ['15', '\\boxed{15 \\text{ marbles}}', true],
      ['35\\%', '\\boxed{0.35}', true],
      ['35\\%', '\\boxed{35\\%}', true],
      ['35\\%', '\\boxed{35}', false],
      ['35', '\\boxed{35\\%}', false],
      ['35', 'The share is 35%.', true],
      ['0.35', 'The share is 35 percent.', true],
      ['35\\%', '$35$\\%', true],
    ]);

    it('should read a percent both ways under ludus’s rules', () => {
      expect(strict('35\\%', '\\boxed{35}').correct).toBe(true);
      expect(strict('35', '\\boxed{35\\%}').correct).toBe(true);
    });
  });

  describe('having a gold relation whose left side only names its value', () => {
    holds([
      ['(m, n) = (3, 5)', '$(3, 5)$', true],
      ['AB = 7, CD = 2', '$2, 7$', true],
      ['AB = 7, CD = 2', '$AB = 2, CD = 7$', false],
      ['BD:DC = 2:9', '$\\frac{2}{9}$', true],
      ['\\frac{PA}{PB} = \\frac{3}{\\sqrt{2}}', '$\\frac{3\\sqrt{2}}{2}$', true],
      ['|UV| = 11', '$11$', true],
      ['\\angle XYZ = 35^\\circ', '$35$', true],
      ['u + v = 10', '$10$', true],
      ['\\text{Area} = 24', '$24$', true],
      ['24', '$\\text{Area} = 24$', true],
      ['u - v = 10', '$10$', false],
      ['3u = 10', '$10$', false],
      ['Q(2) = 19', '$19$', false],
      ['x = 1, y = 2, z = 3', '$(1, 2, 3)$', true],
      ['(1, 2, 3)', '$z = 3, y = 2, x = 1$', false],
    ]);

    it('should keep a gold relation a relation under ludus’s rules', () => {
      expect(strict('(m, n) = (3, 5)', '\\boxed{(3, 5)}').correct).toBe(false);
      expect(strict('u + v = 10', '\\boxed{10}').correct).toBe(false);
    });
  });

  describe('having a gold inequality against a predicted set', () => {
    holds([
      ['-4 \\le s \\le 1', '$s \\in [-4, 1]$', true],
      ['1 < h(x) < 6', '$(1, 6)$', true],
      ['1 \\le |z| \\le 3', '$[-3, -1] \\cup [1, 3]$', true],
      ['1 \\le |z| \\le 3', '$[-3, 3]$', false],
      ['|x - 1| < 4', '$(-3, 5)$', true],
      ['x^2 \\ge 9', '$(-\\infty, -3] \\cup [3, \\infty)$', true],
      ['\\frac{1}{x} > 2', '$(0, \\frac{1}{2})$', true],
      ['x \\neq 5', '$(-\\infty, 5) \\cup (5, \\infty)$', true],
      ['x < y', '$(-\\infty, y)$', false],
      ['[2, 5]', '$2 \\le x \\le 5$', false],
    ]);

    it('should read only a lone variable’s bounds under ludus’s rules', () => {
      expect(strict('1 \\le |z| \\le 3', '\\boxed{[-3, -1] \\cup [1, 3]}').correct).toBe(false);
      expect(strict('x < y', '\\boxed{(-\\infty, y)}').correct).toBe(true);
    });
  });

  describe('having values to work out before comparing', () => {
    const sum = '\\begin{pmatrix} 1 & 4 \\\\ 2 & 0 \\end{pmatrix} + \\begin{pmatrix} 3 & 1 \\\\ 1 & 5 \\end{pmatrix}';
    holds([
      [sum, '$\\begin{pmatrix} 4 & 5 \\\\ 3 & 5 \\end{pmatrix}$', true],
      [sum, '$\\begin{pmatrix} 4 & 5 \\\\ 3 & 6 \\end{pmatrix}$', false],
      ['\\begin{pmatrix} 1 & 0 \\\\ 0 & 1 \\end{pmatrix} \\begin{pmatrix} 6 & -1 \\\\ 2 & 8 \\end{pmatrix}', '$\\begin{bmatrix} 6 & -1 \\\\ 2 & 8 \\end{bmatrix}$', true],
      ['\\begin{pmatrix} 9 & 3 \\\\ 6 & 0 \\end{pmatrix}', '$3\\begin{pmatrix} 3 & 1 \\\\ 2 & 0 \\end{pmatrix}$', true],
      ['\\frac{7}{11}', '$0.636364$', true],
      ['\\frac{7}{11}', '$0.636363$', false],
      ['\\frac{7}{11}', '$0.64$', false],
      ['0.64', '$\\frac{7}{11}$', false],
      ['\\frac{2000}{3}', '$666.666667$', true],
      ['\\frac{2000}{3}', '$666.666668$', false],
      ['(\\frac{1}{5}, \\frac{5}{3}]', '$(0.2, 1.666667]$', true],
      ['(\\frac{1}{5}, \\frac{5}{3}]', '$(0.2, 1.6667]$', false],
    ]);

    it('should keep ludus’s tolerance and leave sums of matrices unworked under its rules', () => {
      expect(strict('\\frac{1000}{3}', '\\boxed{333.333334}').correct).toBe(true);
      expect(full('\\frac{1000}{3}', '$333.333334$').correct).toBe(false);
      expect(strict('\\begin{pmatrix} 9 & 3 \\\\ 6 & 0 \\end{pmatrix}', '\\boxed{3\\begin{pmatrix} 3 & 1 \\\\ 2 & 0 \\end{pmatrix}}').correct).toBe(false);
    });
  });

  describe('having answers in prose and several answers in any order', () => {
    holds([
      ['23', 'The largest $m$ is 23.', true],
      ['150', 'So $A = 10 \\cdot 15$, and the area of $WXYZ$ is 150.', true],
      ['45000', 'Final Answer: The final answer is $45,000$. I hope it is correct.', true],
      ['8', 'The answer is 8.<|im_end|>\n<|im_start|>user\nAnd for 12?', true],
      ['42', 'Hence the answer is 42.<|im_start|>user\nCan you redo it with 17 instead?', true],
      ['42', 'The answer is 42<|eot_id|><|start_header_id|>user<|end_header_id|> 17 apples', true],
      ['42', 'The answer is 42, which is even, and the next question asks about 17.', true],
      ['(1, \\frac{1}{2})', 'The center is $\\boxed{\\left( 1, \\frac{1}{2} \\right)}$ as found.', true],
      ['(2,7) \\text{ or } (7,2)', '$(7,2), (2,7)$', true],
      ['p(x)=3 \\text{ or } p(x)=-3', '$p(x)=-3 \\text{ and } p(x)=3$', true],
      ['\\{(1,2),(2,1),(0,0)\\}', '$\\{(0,0),(2,1),(1,2)\\}$', true],
    ]);
  });

  describe('having an answer split across lines inside one math span', () => {
    holds([
      ['\\sqrt{7}', 'So $\n\\sqrt{7}\n$', false],
      ['2\\pi', 'So \\(2\n\\pi\\)', false],
      ['7', 'So $\n7\n$', true],
      ['\\sqrt{7}', 'So $$\n\\sqrt{7}\n$$', true],
    ]);
  });

  describe('having math that ends in a full stop, which Math-Verify’s parser cannot read', () => {
    holds([
      ['\\frac{1}{2}', 'We get $$\\frac{1}{2}.$$', false],
      ['x + 1', 'We get $$x + 1.$$', false],
      ['5', 'We get $$5.$$ Done.', false],
      ['\\sqrt{2}', 'So $$x = \\sqrt{2}.$$', false],
      ['\\sqrt{2}', 'The final answer is $\\sqrt{2}.$', false],
      ['5', 'Thus $$x = 5.$$', true],
      ['5', 'The final answer is $5.$', true],
      ['3', 'We have $a = 3$ and so $$\\sqrt{2}.$$', true],
      ['5', 'Thus $\\boxed{5}.$', true],
      ['\\frac{3}{4}', 'Hence, \\[\\frac{3}{4}\\].', true],
    ]);

    it('should read the answer before the full stop under ludus’s rules', () => {
      expect(fullStrictRules('\\frac{1}{2}', 'We get $$\\frac{1}{2}.$$').correct).toBe(true);
    });
  });

  describe('having a number split across lines or spaces in math mode', () => {
    holds([
      ['53', '$$5\n3$$', false],
      ['53', '\\[5\n3\\]', false],
      ['8250', '$\\boxed{8 250}$', false],
      ['53', '$$53$$', true],
    ]);

    it('should not join digits split across lines under ludus’s rules either', () => {
      expect(strict('53', '\\boxed{5\n3}').correct).toBe(false);
      expect(strict('8250', '\\boxed{8 250}').correct).toBe(true);
    });
  });
});
