import type { Estimate } from '../eval/report-types.ts';

/** A GitHub-flavoured markdown table; cells are escaped for `|` and newlines. */
export function markdownTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>, align?: ReadonlyArray<'left' | 'right'>): string {
  const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
  const rule = header.map((_, i) => ((align?.[i] ?? (i === 0 ? 'left' : 'right')) === 'right' ? '---:' : '---'));
  return [header, rule, ...rows].map((row) => `| ${row.map(cell).join(' | ')} |`).join('\n');
}

/** A fraction as percent with its SE: `43.1 ± 2.0`. */
export const percentEstimate = (e: Estimate, digits = 1): string => `${(e.value * 100).toFixed(digits)} ± ${(e.se * 100).toFixed(digits)}`;

export const estimate = (e: Estimate, digits = 4): string => `${e.value.toFixed(digits)} ± ${e.se.toFixed(digits)}`;

export const signed = (value: number, digits: number): string => `${value >= 0 ? '+' : '−'}${Math.abs(value).toFixed(digits)}`;

/** A p-value as the paper prints it: three decimals, or a power-of-ten bound when tiny; stars at 0.05, 0.01, 0.001. */
export function pValue(p: number): string {
  if (!Number.isFinite(p)) return 'n/a';
  const stars = p < 0.001 ? '***' : p < 0.01 ? '**' : p < 0.05 ? '*' : '';
  if (p >= 0.001) return `${p.toFixed(3)}${stars}`;
  if (p === 0) return `< 1e-300${stars}`;
  return `< 1e${Math.floor(Math.log10(p)) + 1}${stars}`;
}

/** A token's decoded text in a code span, whitespace made visible (`"\n\n"`, `" the"`). */
export function tokenText(text: string): string {
  const quoted = JSON.stringify(text);
  return quoted.includes('`') ? `\`\` ${quoted} \`\`` : `\`${quoted}\``;
}

/** A file-name-safe form of a model label. */
export const slug = (label: string): string => label.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'model';
