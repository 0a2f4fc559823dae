import { describe, expect, it } from 'vitest';
import { parseJsonExactNumbers } from '../../core/exact-json.ts';

describe('parseJsonExactNumbers', () => {
  describe('having numbers a double holds', () => {
    it('should parse as JSON.parse does', () => {
      const text = '{"a": 1, "b": [2.5, -0.125, 9007199254740991], "c": "12345678901234567890", "d": null}';
      expect(parseJsonExactNumbers(text)).toEqual(JSON.parse(text));
    });
  });

  describe('having an integer past 2^53 or a number that overflows', () => {
    it('should keep the digits as written, as a string, and the other numbers as numbers', () => {
      expect(parseJsonExactNumbers('{"gold": 12345678901234567890, "id": 7}')).toEqual({ gold: '12345678901234567890', id: 7 });
      expect(parseJsonExactNumbers('[9007199254740993, 1e400, 0.5]')).toEqual(['9007199254740993', '1e400', 0.5]);
    });
  });

  describe('having text that is not JSON', () => {
    it('should throw a SyntaxError', () => {
      expect(() => parseJsonExactNumbers('{"gold": ')).toThrow(SyntaxError);
      expect(() => parseJsonExactNumbers('{"gold": 12345678901234567890, ')).toThrow(SyntaxError);
    });
  });
});
