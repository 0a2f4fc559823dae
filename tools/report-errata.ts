/**
 * Re-reads the paired tests of an experiment report written before the exact tests and Holm's correction existed, and
 * appends (or replaces) a section with them, computed from the report's own table: every test's p Holm-corrected across
 * the report's family, and, where the per-problem statistic is 0/1 (pass@k with k the samples per problem), the exact
 * sign test, whose wins and losses the table's Δ and t determine. The per-problem data of these runs was not kept, so
 * nothing else can be recomputed.
 *
 *   npx tsx tools/report-errata.ts docs/experiments/<run>/report.md <samples per problem>
 */
import { readFile, writeFile } from 'node:fs/promises';
import { binomialUpperTail, holm } from '../core/metrics/exact-tests.ts';
import { EXACT_TEST_BELOW, SIGNIFICANCE_LEVEL } from '../lab/eval/significance.ts';
import { markdownTable, pValue } from '../lab/reports/markdown.ts';

const MARKER = '<!-- exact tests and Holm (tools/report-errata.ts) -->';

interface Row {
  readonly comparison: string;
  readonly metric: string;
  readonly delta: number;
  readonly t: number | null;
  readonly n: number;
  readonly p: number;
}

const number = (cell: string) => Number(cell.replace('−', '-').replace('+', '').replace('*', '').trim());

/** Every row of every table whose header starts with `comparison | metric` and has t, df and p columns. */
function testRows(markdown: string): Row[] {
  const rows: Row[] = [];
  let header: string[] | undefined;
  for (const line of markdown.split('\n')) {
    if (!line.startsWith('|')) {
      header = undefined;
      continue;
    }
    const cells = line.slice(1, -1).split('|').map((c) => c.trim());
    if (cells[0] === 'comparison' && cells[1] === 'metric') {
      header = cells;
      continue;
    }
    if (!header || cells[0].startsWith('---')) continue;
    const at = (name: (h: string) => boolean) => cells[header!.findIndex(name)];
    const pCell = at((h) => h.startsWith('p')).replace(/\*+$/, '');
    const df = number(at((h) => h === 'df'));
    const tCell = at((h) => h === 't');
    rows.push({
      comparison: cells[0],
      metric: cells[1],
      delta: number(at((h) => h.startsWith('Δ'))),
      t: /undefined|n\/a/.test(tCell) ? null : number(tCell),
      n: df + 1,
      // A bound as printed ("< 1e-8") is read as its value: every p it yields is a bound of the same direction.
      p: number(pCell.replace('<', '')),
    });
  }
  return rows;
}

/**
 * Wins and losses of a 0/1 per-problem difference (each d in {−1, 0, 1}) from its mean and t: with w + l = m nonzero
 * differences, var = (m − n·mean²)/(n − 1) and t = mean / √(var/n), so m = n·mean²·(n − 1)/t² + n·mean².
 */
function discordant(row: Row): { wins: number; losses: number } | undefined {
  if (row.delta === 0 && row.t === null) return { wins: 0, losses: 0 };
  if (row.t === null || row.t === 0) return undefined;
  const m = Math.round((row.n * row.delta ** 2 * (row.n - 1)) / row.t ** 2 + row.n * row.delta ** 2);
  const net = Math.round(row.delta * row.n);
  if ((m + net) % 2 !== 0 || Math.abs(net) > m) return undefined;
  return { wins: (m + net) / 2, losses: (m - net) / 2 };
}

const [path, samplesArg] = process.argv.slice(2);
const samples = Number(samplesArg);
const markdown = await readFile(path, 'utf8');
const original = markdown.includes(MARKER) ? markdown.slice(0, markdown.indexOf(MARKER)).trimEnd() : markdown.trimEnd();
const rows = testRows(original);
const decided = rows.map((row) => {
  const binary = row.metric.endsWith(`pass@${samples}`) && !row.metric.includes(' vs ');
  const sign = binary ? discordant(row) : undefined;
  const exact = sign !== undefined && sign.wins + sign.losses < EXACT_TEST_BELOW;
  const signP = sign ? binomialUpperTail(sign.wins + sign.losses, row.comparison.includes(' < ') ? sign.losses : sign.wins) : undefined;
  return { row, sign, signP, p: exact ? signP! : row.p };
});
const adjusted = holm(decided.map((d) => d.p));
const body = decided.map(({ row, sign, signP }, i) => [
  row.comparison,
  row.metric,
  pValue(row.p).replace(/\*+$/, ''),
  sign ? `${sign.wins} / ${sign.losses}` : '–',
  signP === undefined ? '–' : pValue(signP).replace(/\*+$/, ''),
  pValue(adjusted[i]).replace(/\*+$/, ''),
  adjusted[i] < SIGNIFICANCE_LEVEL ? 'significant' : 'not significant',
]);
const significant = adjusted.filter((p) => p < SIGNIFICANCE_LEVEL).length;
const section = [
  MARKER,
  '',
  '## Corrected significance (exact tests, Holm)',
  '',
  `Added after the run, from this report's own table: the ${rows.length} paired tests above are one family, Holm-corrected (Holm, 1979). ` +
    `Where the per-problem statistic is 0/1 (pass@${samples} from ${samples} samples), the exact sign test (McNemar's on the discordant problems) replaces the t-test when fewer than ${EXACT_TEST_BELOW} problems differ; ` +
    `its wins and losses follow from the table's Δ and t. The other rows keep their t-test p (the per-problem data of this run was not kept). ` +
    `**${significant} of ${rows.length} tests are significant after correction**; every row marked "not significant" supports no claim, whatever its raw p.`,
  '',
  markdownTable(['comparison', 'metric', 'p (t-test)', 'higher / lower on', 'p (exact sign test)', 'p (Holm)', 'result'], body),
  '',
].join('\n');
await writeFile(path, `${original}\n\n${section}`);
process.stdout.write(`${path}: ${rows.length} tests, ${significant} significant after Holm\n`);
