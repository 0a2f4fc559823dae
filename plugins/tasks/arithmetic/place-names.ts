export const PLACE_NAMES = [
  'ones',
  'tens',
  'hundreds',
  'thousands',
  'ten thousands',
  'hundred thousands',
  'millions',
  'ten millions',
  'hundred millions',
  'billions',
  'ten billions',
  'hundred billions',
  'trillions',
] as const;

export function placeLabel(column: number): string {
  const name = PLACE_NAMES[column];
  return name[0].toUpperCase() + name.slice(1);
}
