import type { Rng } from '../../../core/rng.ts';
import type { Operation } from './options.ts';

/** Digits are stored ones first. For 'mul', `bottom` is the single multiplier digit. */
export interface Operands {
  operation: Operation;
  top: number[];
  bottom: number[];
}

/** The carry (or borrow) a column passes on, given its digits and what it received. */
export function columnCarry(operation: Operation, x: number, y: number, carryIn: number): number {
  switch (operation) {
    case 'add':
      return x + y + carryIn >= 10 ? 1 : 0;
    case 'sub':
      return x - y - carryIn < 0 ? 1 : 0;
    case 'mul':
      return Math.floor((x * y + carryIn) / 10);
  }
}

export function bottomDigitAt(operands: Operands, column: number): number {
  if (operands.operation === 'mul') return operands.bottom[0];
  return operands.bottom[column] ?? 0;
}

export function digitsToNumber(digits: readonly number[]): number {
  return Number([...digits].reverse().join(''));
}

const ALL_DIGITS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
const NONZERO_DIGITS = [1, 2, 3, 4, 5, 6, 7, 8, 9];

function digitChoices(column: number, length: number): number[] {
  if (column >= length) return [0];
  return column === length - 1 && length > 1 ? NONZERO_DIGITS : ALL_DIGITS;
}

export interface OperandShape {
  minDigits: number;
  maxDigits: number;
  carryRate: number;
}

/**
 * Draws operands column by column, ones first: each column carries with probability
 * `carryRate` when its digits allow both outcomes. A subtraction never borrows out of its
 * top column, so its result is never negative.
 */
export function drawOperands(operation: Operation, rng: Rng, shape: OperandShape): Operands {
  const topLength = shape.minDigits + rng.int(shape.maxDigits - shape.minDigits + 1);
  const multiplier = 2 + rng.int(8);
  const bottomLength = operation === 'mul' ? 1 : 1 + rng.int(topLength);
  const top: number[] = [];
  const bottom: number[] = operation === 'mul' ? [multiplier] : [];
  let carry = 0;
  for (let column = 0; column < topLength; column++) {
    const ys = operation === 'mul' ? [multiplier] : digitChoices(column, bottomLength);
    const carryIn = carry;
    const pairs = digitChoices(column, topLength)
      .flatMap((x) => ys.map((y) => [x, y] as const))
      .filter(([x, y]) => !(operation === 'sub' && column === topLength - 1 && columnCarry('sub', x, y, carryIn) > 0));
    const wantCarry = rng.bernoulli(shape.carryRate);
    const wanted = pairs.filter(([x, y]) => columnCarry(operation, x, y, carryIn) > 0 === wantCarry);
    const pool = wanted.length > 0 ? wanted : pairs;
    const [x, y] = pool[rng.int(pool.length)];
    top.push(x);
    if (operation !== 'mul' && column < bottomLength) bottom.push(y);
    carry = columnCarry(operation, x, y, carryIn);
  }
  return { operation, top, bottom };
}
