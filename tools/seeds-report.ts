/**
 * Rewrites an experiment's report across training seeds (`report.md`, `report.json`) from the reports its seeds saved
 * (`seed-<s>/report.json`, each the whole result of that seed's run), with today's statistics: the seed-level test of
 * every claim as the primary test, the pooled per-problem test beside it. Nothing is retrained or re-evaluated; every
 * number comes from the saved results.
 *
 *   npx tsx tools/seeds-report.ts docs/experiments/<experiment>/<run>
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AGON_VS_GRPO } from '../lab/experiments/agon-vs-grpo.ts';
import { writeSeedsReport } from '../lab/experiments/seeds-summary.ts';
import { TANDEM_VS_GRPO } from '../lab/experiments/tandem-vs-grpo.ts';
import { TANGO_VS_GRPO } from '../lab/experiments/tango-vs-grpo.ts';

const DEFINITIONS = { [AGON_VS_GRPO.name]: AGON_VS_GRPO, [TANDEM_VS_GRPO.name]: TANDEM_VS_GRPO, [TANGO_VS_GRPO.name]: TANGO_VS_GRPO } as const;

const dir = process.argv[2];
if (!dir) {
  console.error('usage: npx tsx tools/seeds-report.ts <experiment directory with report.json and seed-<s>/report.json>');
  process.exit(2);
}
const saved = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as { experiment: string; seeds: number[] };
const definition = DEFINITIONS[saved.experiment];
if (!definition) {
  console.error(`${dir}: unknown experiment "${saved.experiment}"`);
  process.exit(2);
}
const results = await Promise.all(saved.seeds.map(async (seed) => JSON.parse(await readFile(join(dir, `seed-${seed}`, 'report.json'), 'utf8'))));
const { tests, report } = await writeSeedsReport(dir, definition, saved.seeds, results.map((result) => definition.headline(result as never)));
for (const t of tests) console.log(`${t.claim ? 'claim' : 'other'}\t${t.model} > ${t.other}\t${t.metric}\t${t.perSeed.map((s) => s.diff.toFixed(3)).join(' ')}\tp ${t.test?.p.toFixed(3)}\tHolm ${t.test?.p_holm.toFixed(3)}\tpooled Holm ${t.pooled.p_holm.toFixed(3)}`);
console.log(`wrote ${report}`);
