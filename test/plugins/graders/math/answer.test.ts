import { describe, expect, it } from 'vitest';
import { parseAnswer, type Answer } from '../../../../plugins/graders/math/answer.ts';
import { StepBudget } from '../../../../plugins/graders/math/budget.ts';
import { normalizeAnswer } from '../../../../plugins/graders/math/normalize.ts';

/** The answer's shape, with expressions left out. */
function shapeOf(answer: Answer): unknown {
  switch (answer.kind) {
    case 'expression':
      return answer.kind;
    case 'equation':
    case 'chain':
      return { [answer.kind]: shapeOf(answer.last) };
    case 'inequality':
      return { inequality: [answer.name, answer.interval && shapeOf(answer.interval)] };
    case 'matrix':
      return { matrix: answer.rows.map((row) => row.map(shapeOf)) };
    case 'ordered':
      return { [`${answer.open}${answer.close}`]: answer.items.map(shapeOf) };
    case 'set':
    case 'list':
    case 'union':
      return { [answer.kind]: answer.items.map(shapeOf) };
    case 'named':
      return { named: [answer.name, shapeOf(answer.value)] };
    case 'words':
    case 'unparsed':
      return { [answer.kind]: answer.text };
  }
}

const shape = (raw: string): unknown => shapeOf(parseAnswer(normalizeAnswer(raw), new StepBudget()));

describe('parseAnswer', () => {
  it.each<[string, unknown]>([
    ['\\frac{1}{2}', 'expression'],
    ['1,000', 'expression'],
    ['1,000,000.5', 'expression'],
    ['1,00', { list: ['expression', 'expression'] }],
    ['1, 2', { list: ['expression', 'expression'] }],
    ['(1, -2)', { '()': ['expression', 'expression'] }],
    ['[0, 1)', { '[)': ['expression', 'expression'] }],
    ['(x+1)', 'expression'],
    ['\\{1, 2\\}', { set: ['expression', 'expression'] }],
    ['\\{3\\}', { set: ['expression'] }],
    ['\\emptyset', { set: [] }],
    ['\\{\\}', { set: [] }],
    ['\\{(1,2), (3,4)\\}', { set: [{ '()': ['expression', 'expression'] }, { '()': ['expression', 'expression'] }] }],
    ['(-\\infty, 0) \\cup (1, \\infty)', { union: [{ '()': ['expression', 'expression'] }, { '()': ['expression', 'expression'] }] }],
    ['x = 3', { named: ['x', 'expression'] }],
    ['f(x) = x^2', { named: ['f(x)', 'expression'] }],
    ['x = (1, 2)', { named: ['x', { '()': ['expression', 'expression'] }] }],
    ['x \\in [0, 1)', { named: ['x', { '[)': ['expression', 'expression'] }] }],
    ['x^2 + y^2 = 1', { equation: 'expression' }],
    ['AB = 4', { equation: 'expression' }],
    ['a + b = b + a = 101', { chain: 'expression' }],
    ['1; 2', { list: ['expression', 'expression'] }],
    ['(1,2); (3,4)', { list: [{ '()': ['expression', 'expression'] }, { '()': ['expression', 'expression'] }] }],
    ['{1, 2}', { set: ['expression', 'expression'] }],
    ['{5}', 'expression'],
    ['\\{1,3\\} \\cup \\{2,4\\}', { set: ['expression', 'expression', 'expression', 'expression'] }],
    ['7:32', 'expression'],
    ['x > 3', { inequality: ['x', { '()': ['expression', 'expression'] }] }],
    ['3 \\le x', { inequality: ['x', { '[)': ['expression', 'expression'] }] }],
    ['-1 < x \\le 2', { inequality: ['x', { '(]': ['expression', 'expression'] }] }],
    ['1 < x > 2', { unparsed: '1<x>2' }],
    ['\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}', { matrix: [['expression', 'expression'], ['expression', 'expression']] }],
    ['\\begin{bmatrix} 1 \\\\ 2 \\end{bmatrix}', { matrix: [['expression'], ['expression']] }],
    ['(\\begin{array}{cc} 1 & 2 \\end{array})', { matrix: [['expression', 'expression']] }],
    ['1 \\pm \\sqrt{2}', { list: ['expression', 'expression'] }],
    ['2\\frac{1}{2}', 'expression'],
    ['\\text{Monday}', { words: 'monday' }],
  ])('should read %s as %j', (raw, expected) => {
    expect(shape(raw)).toEqual(expected);
  });
});
