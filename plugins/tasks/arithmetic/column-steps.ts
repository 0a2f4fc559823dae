import { bottomDigitAt, columnCarry, type Operands } from './operands.ts';
import { placeLabel } from './place-names.ts';

export interface ColumnWalk {
  steps: string[];
  /** The written digits read as a number, without leading zeros. */
  answer: string;
}

/**
 * One column in words. `passOn` false writes the column without passing its carry (or borrow) on: the column's own
 * arithmetic stays right, the next column just never hears of it.
 */
function columnStep(operands: Operands, column: number, carryIn: number, passOn: boolean): { step: string; digit: number; carryOut: number } {
  const x = operands.top[column];
  const y = bottomDigitAt(operands, column);
  const carryOut = columnCarry(operands.operation, x, y, carryIn);
  const place = placeLabel(column);
  const passes = carryOut > 0 && passOn;
  switch (operands.operation) {
    case 'add': {
      const sum = x + y + carryIn;
      const carried = carryIn > 0 ? ' plus carry 1' : '';
      const passed = passes ? ', carry 1' : '';
      return { step: `${place}: ${x} plus ${y}${carried} is ${sum}. Write ${sum % 10}${passed}.`, digit: sum % 10, carryOut: passes ? carryOut : 0 };
    }
    case 'sub': {
      const lent = x + 10 * carryOut;
      const difference = lent - y - carryIn;
      const borrowed = carryIn > 0 ? ' minus borrow 1' : '';
      const passed = passes ? ', borrow 1' : '';
      return { step: `${place}: ${lent} minus ${y}${borrowed} is ${difference}. Write ${difference}${passed}.`, digit: difference, carryOut: passes ? carryOut : 0 };
    }
    case 'mul': {
      const product = x * y + carryIn;
      const carried = carryIn > 0 ? ` plus carry ${carryIn}` : '';
      const passed = passes ? `, carry ${carryOut}` : '';
      return { step: `${place}: ${x} times ${y}${carried} is ${product}. Write ${product % 10}${passed}.`, digit: product % 10, carryOut: passes ? carryOut : 0 };
    }
  }
}

/**
 * The schoolbook method in words: one step per column, ones first, then any last carry. `skips(column)` is asked at
 * every column whose carry (or borrow) is due; where it answers true the column writes its digit but does not pass
 * the carry on, and the walk continues consistently from what was written. That is the classic systematic slip of a
 * pupil who knows the method (Brown & Burton 1978: the forgotten carry, and borrowing without decrementing), and
 * the whole of the shipped base's flaw (lab/pretrain). The answer is then what the written digits read.
 */
export function columnSteps(operands: Operands, skips: (column: number) => boolean = () => false): ColumnWalk {
  const steps: string[] = [];
  const written: number[] = [];
  let carry = 0;
  for (let column = 0; column < operands.top.length; column++) {
    const due = columnCarry(operands.operation, operands.top[column], bottomDigitAt(operands, column), carry) > 0;
    const { step, digit, carryOut } = columnStep(operands, column, carry, !(due && skips(column)));
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
