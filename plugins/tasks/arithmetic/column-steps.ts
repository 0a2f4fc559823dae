import { bottomDigitAt, columnCarry, type Operands } from './operands.ts';
import { placeLabel } from './place-names.ts';

export interface ColumnWalk {
  steps: string[];
  /** The written digits read as a number, without leading zeros. */
  answer: string;
}

function columnStep(operands: Operands, column: number, carryIn: number): { step: string; digit: number; carryOut: number } {
  const x = operands.top[column];
  const y = bottomDigitAt(operands, column);
  const carryOut = columnCarry(operands.operation, x, y, carryIn);
  const place = placeLabel(column);
  switch (operands.operation) {
    case 'add': {
      const sum = x + y + carryIn;
      const carried = carryIn > 0 ? ' plus carry 1' : '';
      const passed = carryOut > 0 ? ', carry 1' : '';
      return { step: `${place}: ${x} plus ${y}${carried} is ${sum}. Write ${sum % 10}${passed}.`, digit: sum % 10, carryOut };
    }
    case 'sub': {
      const lent = x + 10 * carryOut;
      const difference = lent - y - carryIn;
      const borrowed = carryIn > 0 ? ' minus borrow 1' : '';
      const passed = carryOut > 0 ? ', borrow 1' : '';
      return { step: `${place}: ${lent} minus ${y}${borrowed} is ${difference}. Write ${difference}${passed}.`, digit: difference, carryOut };
    }
    case 'mul': {
      const product = x * y + carryIn;
      const carried = carryIn > 0 ? ` plus carry ${carryIn}` : '';
      const passed = carryOut > 0 ? `, carry ${carryOut}` : '';
      return { step: `${place}: ${x} times ${y}${carried} is ${product}. Write ${product % 10}${passed}.`, digit: product % 10, carryOut };
    }
  }
}

/** The schoolbook method in words: one step per column, ones first, then any last carry. */
export function columnSteps(operands: Operands): ColumnWalk {
  const steps: string[] = [];
  const written: number[] = [];
  let carry = 0;
  for (let column = 0; column < operands.top.length; column++) {
    const { step, digit, carryOut } = columnStep(operands, column, carry);
    steps.push(step);
    written.push(digit);
    carry = carryOut;
  }
  if (carry > 0) {
    steps.push(`${placeLabel(operands.top.length)}: carry ${carry}. Write ${carry}.`);
    written.push(carry);
  }
  const answer = [...written].reverse().join('').replace(/^0+(?=\d)/, '');
  return { steps, answer };
}
