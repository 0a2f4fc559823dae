import { describe, expect, it } from 'vitest';
import { enclosingBrackets, splitTopLevel, splitTopLevelAny } from '../../../../plugins/graders/math/top-level.ts';

describe('splitTopLevel', () => {
  it('should cut only outside brackets of every kind', () => {
    expect(splitTopLevel('(1,2), [3,4), \\{5,6\\}, \\frac{7}{8}', ',')).toEqual(['(1,2)', '[3,4)', '\\{5,6\\}', '\\frac{7}{8}']);
  });

  it('should cut on a command separator but not on a longer command', () => {
    expect(splitTopLevel('(0,1) \\cup (2,3)', '\\cup')).toEqual(['(0,1)', '(2,3)']);
    expect(splitTopLevel('\\cupid', '\\cup')).toEqual(['\\cupid']);
  });
});

describe('enclosingBrackets', () => {
  it('should find one pair wrapping everything, brackets allowed to differ', () => {
    expect(enclosingBrackets('[0, 1)')).toEqual({ open: '[', close: ')', inner: '0, 1' });
    expect(enclosingBrackets('\\{1, 2\\}')).toEqual({ open: '\\{', close: '\\}', inner: '1, 2' });
    expect(enclosingBrackets('{1, 2}')).toEqual({ open: '{', close: '}', inner: '1, 2' });
  });

  it('should refuse pairs that close before the end', () => {
    expect(enclosingBrackets('(1)(2)')).toBeUndefined();
    expect(enclosingBrackets('(0,1) \\cup (2,3)')).toBeUndefined();
    expect(enclosingBrackets('\\{1\\} + (2)')).toBeUndefined();
    expect(enclosingBrackets('{1}{2}')).toBeUndefined();
    expect(enclosingBrackets('{1, 2\\}')).toBeUndefined();
    expect(enclosingBrackets('(1, 2}')).toBeUndefined();
  });
});

describe('splitTopLevelAny', () => {
  it('should cut at any of several separators and say which stood where', () => {
    expect(splitTopLevelAny('-1 < x \\le (2, 3)', new Set(['<', '\\le']))).toEqual({ parts: ['-1', 'x', '(2, 3)'], separators: ['<', '\\le'] });
    expect(splitTopLevelAny('\\leq 1', new Set(['\\le']))).toEqual({ parts: ['\\leq 1'], separators: [] });
  });
});
