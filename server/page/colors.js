// Colours as concrete CSS colour strings: a canvas does not resolve `var(--…)`, so role colours declared in the
// stylesheet are read from it once and handed to the charts as they are.
const PALETTE = ['#1d4ed8', '#c2410c', '#047857', '#7c3aed', '#be185d', '#0e7490', '#a16207'];
/**
 * Authors whose colour the stylesheet declares (`--senior`, `--junior`, and `--env` for a tool's result tokens): tokens,
 * legends and curves share it.
 */
const STYLED_ROLES = ['senior', 'junior', 'env'];
/** Runs overlaid on one chart: a colour per run (roles then differ by dash). */
const RUN_PALETTE = ['#1d4ed8', '#c2410c', '#047857', '#7c3aed', '#be185d', '#0e7490'];

/** @type {Record<string, string> | null} */
let styled = null;

/** @returns {Record<string, string>} */
function styledColors() {
  if (styled) return styled;
  const style = getComputedStyle(document.documentElement);
  const colors = Object.fromEntries(STYLED_ROLES.map((role) => [role, style.getPropertyValue(`--${role}`).trim()]).filter(([, color]) => color !== ''));
  styled = colors;
  return colors;
}

/**
 * A role's (or policy's) colour: the stylesheet's where it declares one, else a fixed pick by name.
 * @param {string} name
 * @returns {string}
 */
export function colorOf(name) {
  const fixed = styledColors()[name];
  if (fixed) return fixed;
  let hash = 0;
  for (const char of name) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return PALETTE[hash % PALETTE.length] ?? '#000';
}

/** @type {(index: number) => string} */
export const runColor = (index) => RUN_PALETTE[index % RUN_PALETTE.length] ?? '#000';

/**
 * Dash patterns for the roles of one run when runs are overlaid (the first solid).
 * @type {(index: number) => number[]}
 */
export const dashOf = (index) => [[], [6, 3], [2, 3], [8, 3, 2, 3]][index % 4] ?? [];

/**
 * A colour between two for a value in [0, 1] (the payoff heat map): low is `from`, high is `to`.
 * @param {string} from
 * @param {string} to
 * @param {number} t
 */
export function mix(from, to, t) {
  /** @param {string} hex */
  const parse = (hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  const [a, b] = [parse(from), parse(to)];
  return `rgb(${a.map((v, i) => Math.round(v + ((b[i] ?? v) - v) * t)).join(', ')})`;
}
