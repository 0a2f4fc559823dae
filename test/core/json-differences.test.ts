import { describe, expect, it } from 'vitest';
import { jsonDifferences } from '../../core/json-differences.ts';

describe('jsonDifferences', () => {
  it('should name every differing leaf by its dotted path, arrays whole, absent fields as absent, in key order', () => {
    const before = { seed: 0, groupSize: 8, knobs: { beta: 0.001, estimator: 'k3' }, plugins: ['a.ts'], model: 'default' };
    const after = { seed: 0, groupSize: 4, knobs: { beta: 0.1 }, plugins: ['a.ts', 'b.ts'], model: 'default', task: 'x.jsonl' };
    expect(jsonDifferences(before, after)).toEqual([
      { path: 'groupSize', before: '8', after: '4' },
      { path: 'knobs.beta', before: '0.001', after: '0.1' },
      { path: 'knobs.estimator', before: '"k3"', after: 'absent' },
      { path: 'plugins', before: '["a.ts"]', after: '["a.ts","b.ts"]' },
      { path: 'task', before: 'absent', after: '"x.jsonl"' },
    ]);
  });

  it('should find nothing between equal values, an undefined field counting as absent', () => {
    expect(jsonDifferences({ a: { b: [1, 2] }, c: undefined }, { a: { b: [1, 2] } })).toEqual([]);
  });
});
