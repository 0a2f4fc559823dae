const PLURALIZABLE = [
  'meter', 'metre', 'centimeter', 'centimetre', 'millimeter', 'kilometer', 'inch', 'foot', 'yard', 'mile',
  'unit', 'liter', 'litre', 'milliliter', 'gallon', 'cup', 'quart', 'pint',
  'gram', 'kilogram', 'milligram', 'pound', 'ounce', 'ton',
  'second', 'minute', 'hour', 'day', 'week', 'month', 'year',
  'dollar', 'cent', 'euro', 'degree', 'radian', 'point',
];

const PLAIN = [
  'mm', 'cm', 'km', 'ft', 'feet', 'inches', 'in', 'yd', 'mi', 'sq', 'square', 'cubic', 'ml', 'lb', 'lbs', 'oz', 'kg', 'mg',
  'sec', 'secs', 'min', 'mins', 'hr', 'hrs', 'yr', 'yrs', 'deg', 'rad', 'mph', 'kph', 'per', 'percent', 'cents',
];

/** Single letters are units only inside `\text{}`/`\mathrm{}`; written bare they are variables. */
const SINGLE_LETTER = ['m', 'g', 's', 'h', 'l'];

const UNIT_WORDS = new Set([...PLURALIZABLE, ...PLURALIZABLE.map((w) => `${w}s`), ...PLAIN, 'inches', 'feet']);

export function isUnitWord(word: string, { inTextCommand }: { inTextCommand: boolean }): boolean {
  const w = word.toLowerCase().replace(/\.$/, '');
  return UNIT_WORDS.has(w) || (inTextCommand && SINGLE_LETTER.includes(w));
}

/** True when `words` (split on spaces and `/`) is a non-empty run of unit words, e.g. "square cm" or "m/s". */
export function isUnitPhrase(words: string, context: { inTextCommand: boolean }): boolean {
  const parts = words.split(/[\s/]+/).filter((p) => p.length > 0);
  return parts.length > 0 && parts.every((p) => isUnitWord(p, context));
}
