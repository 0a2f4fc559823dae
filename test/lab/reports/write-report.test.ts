import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EvalReport } from '../../../lab/eval/report-types.ts';
import { writeReport } from '../../../lab/reports/write-report.ts';
import { rejection } from '../../support/errors.ts';
import { fixtureReport } from './fixtures.ts';
import { elements, pngSize } from './svg-query.ts';

const tempDir = () => mkdtemp(join(tmpdir(), 'ludus-report-'));

/** The markdown table under a heading, as rows of trimmed cells (header first, rule dropped). */
function tableAfter(markdown: string, heading: string): string[][] {
  const start = markdown.indexOf(`${heading}\n`);
  expect(start, `heading "${heading}"`).toBeGreaterThanOrEqual(0);
  const lines = markdown.slice(start).split('\n');
  const first = lines.findIndex((line) => line.startsWith('|'));
  const rows: string[][] = [];
  for (const line of lines.slice(first)) {
    if (!line.startsWith('|')) break;
    rows.push(line.slice(2, -2).split(/ (?<!\\)\| /).map((cell) => cell.trim()));
  }
  return rows.filter((_, i) => i !== 1);
}

const trl = fixtureReport('runs/x/tandem/best', 1.2, {
  reference: 'runs/x/grpo/best',
  significance: {
    other: 'runs/x/grpo/best',
    tests: [
      { metric: 'handoff pass@1', alternative: 'greater', mean_diff: 0.0142, statistic: 2.61, df: 9, p: 0.0049, n: 10 },
      { metric: 'legibility cross_entropy', alternative: 'less', mean_diff: -0.0146, statistic: null, df: 9, p: 0, n: 10 },
    ],
  },
});
trl.drift!.displaced = {
  top: 2,
  shift_back_share: 0.5,
  shift_back_share_se: 0.021,
  spearman: { rho: -0.58, p: 3e-7 },
  spearman_rho_se: 0.05,
  tokens: [
    { id: 7, text: ' the', reference_log_ratio: 1.5, shift: -0.5 },
    { id: 9, text: 'x', reference_log_ratio: 1, shift: 0.25 },
  ],
};
const grpo = fixtureReport('runs/x/grpo/best', 1);

describe('writeReport', () => {
  describe('having a TRL and a GRPO evaluation with every axis', () => {
    it('should write report.md, report.json and each figure as SVG and PNG, atomically', async () => {
      const dir = await tempDir();
      const { files } = await writeReport([grpo, trl], dir, { labels: ['GRPO', 'TRL'], pngWidth: 360 });
      const names = (await readdir(dir)).sort();
      expect(names).toEqual(
        [
          'report.md',
          'report.json',
          ...['capability-pass-at-k', 'handoff-strict-alternation-pass-at-k', 'handoff-bernoulli-0-5-pass-at-k', 'drift-survival', 'drift-displaced-trl'].flatMap((n) => [`${n}.svg`, `${n}.png`]),
        ].sort(),
      );
      expect(files.map((f) => f.slice(dir.length + 1))[0]).toBe('report.md');
      const png = pngSize(await readFile(join(dir, 'capability-pass-at-k.png')));
      expect(png).toEqual({ signature: true, width: 360, height: 210 });
      const json = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as { models: Array<{ label: string; report: EvalReport }> };
      expect(json.models.map((m) => m.label)).toEqual(['GRPO', 'TRL']);
      expect(json.models[1].report).toEqual(trl);
    });

    it('should tabulate capability as pass@k in percent ± SE', async () => {
      const { markdown } = await writeReport([grpo, trl], await tempDir(), { labels: ['GRPO', 'TRL'], png: false });
      expect(tableAfter(markdown, '## Solo capability')).toEqual([
        ['model', 'pass@1 (%)', 'pass@2 (%)', 'pass@4 (%)', 'answer present (%)', 'response tokens'],
        ['GRPO', '43.0 ± 2.1', '50.0 ± 2.0', '60.0 ± 3.0', '95.0', '61.3'],
        ['TRL', '51.6 ± 2.1', '60.0 ± 2.0', '72.0 ± 3.0', '95.0', '61.3'],
      ]);
      expect(markdown).toContain('![Solo capability: macro pass@k, shaded ±1 bootstrap SE](capability-pass-at-k.svg)');
    });

    it('should tabulate handoff robustness per variant with the senior share as mean ± std (no ± SE on reports made before those SEs)', async () => {
      const { markdown } = await writeReport([grpo, trl], await tempDir(), { labels: ['GRPO', 'TRL'], png: false });
      expect(tableAfter(markdown, '### strict alternation')).toEqual([
        ['model', 'pass@1 (%)', 'pass@2 (%)', 'senior share (%, mean ± std)', 'handoffs / rollout', 'answer present (%)'],
        ['GRPO', '30.0 ± 5.0', '40.0 ± 5.0', '50.0 ± 7.0', '2.50', '90.0'],
        ['TRL', '36.0 ± 5.0', '48.0 ± 5.0', '50.0 ± 7.0', '2.50', '90.0'],
      ]);
      expect(markdown).toContain('### Bernoulli(0.5)');
    });

    it('should tabulate drift with KL, shift-back share, ρ and the over-emitted tokens made visible', async () => {
      const { markdown } = await writeReport([grpo, trl], await tempDir(), { labels: ['GRPO', 'TRL'], png: false });
      const rows = tableAfter(markdown, '## Drift from the junior');
      expect(rows[1]).toEqual(['GRPO', '1000', '0.0123 ± 0.0010', '–', '–', '–', '`" the"` 40/20, `"a\\|b\\n"` 11/2']);
      expect(rows[2].slice(0, 6)).toEqual(['TRL', '1000', '0.0148 ± 0.0010', 'GRPO (top 2)', '50.0 ± 2.1', '−0.580 ± 0.050 (p < 1e-6)']);
      // Survival points without SEs (reports made before them): no band, and the caption does not promise one.
      expect(markdown).toContain('(lower is closer)](drift-survival.svg)');
    });

    it('should add the bootstrap SE of the mean senior share where the report has one', async () => {
      const withSe = fixtureReport('runs/x/tandem/best', 1);
      withSe.handoff![0].per_benchmark.arithmetic.senior_share.mean_se = 0.012;
      const { markdown } = await writeReport([grpo, withSe], await tempDir(), { labels: ['GRPO', 'TRL'], png: false });
      const rows = tableAfter(markdown, '### strict alternation');
      expect(rows[0][3]).toBe('senior share (%, mean ± std; SE of the mean)');
      expect(rows.slice(1).map((row) => row[3])).toEqual(['50.0 ± 7.0', '50.0 ± 7.0; 1.2']);
    });

    it('should add ± SE to handoffs per rollout, the answer-present rates and the survival curve where the report has them', async () => {
      const withSe = fixtureReport('runs/x/tandem/best', 1);
      withSe.capability!.per_benchmark.arithmetic.answer_present_rate_se = 0.0123;
      Object.assign(withSe.handoff![0].per_benchmark.arithmetic, { handoffs_per_rollout_se: 0.314, answer_present_rate_se: 0.02 });
      withSe.drift!.survival = withSe.drift!.survival.map((point) => ({ ...point, se: 0.05 }));
      const dir = await tempDir();
      const { markdown } = await writeReport([grpo, withSe], dir, { labels: ['GRPO', 'TRL'], png: false });
      expect(tableAfter(markdown, '## Solo capability').map((row) => row[4])).toEqual(['answer present (%)', '95.0', '95.0 ± 1.2']);
      expect(tableAfter(markdown, '### strict alternation').map((row) => row.slice(4))).toEqual([
        ['handoffs / rollout', 'answer present (%)'],
        ['2.50', '90.0'],
        ['2.50 ± 0.31', '90.0 ± 2.0'],
      ]);
      expect(markdown).toContain('![Drift from the junior: share of frequent tokens whose |log-ratio| exceeds x (lower is closer), shaded ±1 bootstrap SE](drift-survival.svg)');
      const svg = await readFile(join(dir, 'drift-survival.svg'), 'utf8');
      // The band is TRL's alone: GRPO's report predates survival SEs.
      expect(elements(svg, 'g', 'series').map((g) => g['data-label'])).toEqual(['GRPO', 'TRL']);
      expect(elements(svg, 'path', 'band')).toHaveLength(1);
      expect(elements(svg, 'path', 'line')).toHaveLength(2);
    });

    it('should show the macro handoffs per rollout ± its stratified SE, and no answer-present rate on the macro row', async () => {
      const two = fixtureReport('m', 1, { benchmarks: [{ name: 'arithmetic', split: 'test', problems: 10 }, { name: 'last-letter', split: 'test', problems: 10 }] });
      const h = two.handoff![0];
      h.per_benchmark['last-letter'] = { ...h.per_benchmark.arithmetic, handoffs_per_rollout: 1.5, handoffs_per_rollout_se: 0.1, answer_present_rate: 0.8, answer_present_rate_se: 0.04 };
      Object.assign(h.macro, { handoffs_per_rollout: 2, handoffs_per_rollout_se: 0.07 });
      const { markdown } = await writeReport([two], await tempDir(), { png: false });
      expect(tableAfter(markdown, '### strict alternation').map((row) => [row[1], ...row.slice(-2)])).toEqual([
        ['benchmark', 'handoffs / rollout', 'answer present (%)'],
        ['arithmetic', '2.50', '90.0'],
        ['last-letter', '1.50 ± 0.10', '80.0 ± 4.0'],
        ['macro', '2.00 ± 0.07', '–'],
      ]);
    });

    it('should tabulate legibility and the paired tests, Holm-corrected across the report with the family size, naming each result', async () => {
      const { markdown } = await writeReport([grpo, trl], await tempDir(), { labels: ['GRPO', 'TRL'], png: false });
      expect(tableAfter(markdown, '## Junior legibility').slice(1)).toEqual([
        ['GRPO', '0.2500 ± 0.0100', '0.9600 ± 0.0020', '612'],
        ['TRL', '0.3000 ± 0.0100', '0.9600 ± 0.0020', '612'],
      ]);
      expect(tableAfter(markdown, '## Significance').slice(1)).toEqual([
        // Reports made before the sign test carry no `sign`: their t-test decides. Holm over 2: 0 · 2 = 0, then 0.005 · 1.
        ['TRL > GRPO', 'handoff pass@1', '+0.0142', '+2.61', '0.005', '–', '–', 't-test', '0.005', 'significant', '10'],
        ['TRL < GRPO', 'legibility cross_entropy', '−0.0146', 'n/a (zero variance)', '< 1e-300', '–', '–', 't-test', '< 1e-300', 'significant', '10'],
      ]);
      expect(markdown).toContain("Holm-corrected across this report's family of **2 tests**");
    });

    it('should plot the displaced tokens at the reference log-ratio and the model’s shift', async () => {
      const dir = await tempDir();
      await writeReport([grpo, trl], dir, { labels: ['GRPO', 'TRL'], png: false });
      const svg = await readFile(join(dir, 'drift-displaced-trl.svg'), 'utf8');
      expect(elements(svg, 'circle', 'point').map((c) => c['data-token'])).toEqual([' the', 'x']);
      expect(elements(svg, 'g', 'legend-entry').map((g) => g['data-label'])).toEqual(['shifts back', 'moves with GRPO']);
    });
  });

  describe('having extra comparisons and a report with two benchmarks', () => {
    it('should add a benchmark column with a macro row, and print the given comparisons', async () => {
      const two = fixtureReport('m', 1, { benchmarks: [{ name: 'arithmetic', split: 'test', problems: 10 }, { name: 'last-letter', split: 'test', problems: 10 }] });
      two.capability!.per_benchmark['last-letter'] = { pass_at_k: { '1': { value: 0.1, se: 0.01 } }, answer_present_rate: 0.5, mean_response_tokens: 30 };
      two.capability!.macro.pass_at_k = { '1': { value: 0.265, se: 0.012 } };
      const { markdown } = await writeReport([two], await tempDir(), {
        png: false,
        comparisons: [{ model: 'm', significance: { other: 'base', tests: [{ metric: 'capability pass@1', alternative: 'greater', mean_diff: 0.01, statistic: 0.5, df: 19, p: 0.31, n: 20 }] } }],
      });
      expect(tableAfter(markdown, '## Solo capability').map((row) => row.slice(0, 3))).toEqual([
        ['model', 'benchmark', 'pass@1 (%)'],
        ['m', 'arithmetic', '43.0 ± 2.1'],
        ['m', 'last-letter', '10.0 ± 1.0'],
        ['m', 'macro', '26.5 ± 1.2'],
      ]);
      expect(tableAfter(markdown, '## Significance')[1]).toEqual(['m > base', 'capability pass@1', '+0.0100', '+0.50', '0.310', '–', '–', 't-test', '0.310', 'not significant', '20']);
    });
  });

  describe('having notes and an extra figure', () => {
    it('should show the figure after the notes and write it beside the others', async () => {
      const dir = await tempDir();
      const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="20" height="10"/>';
      const { markdown } = await writeReport([grpo], dir, { notes: ['How it was made.'], figures: [{ name: 'training-reward', caption: 'Training reward', svg }], pngWidth: 40 });
      expect(markdown.indexOf('![Training reward](training-reward.svg)')).toBeGreaterThan(markdown.indexOf('How it was made.'));
      expect(markdown.indexOf('![Training reward](training-reward.svg)')).toBeLessThan(markdown.indexOf('## Models'));
      expect(await readFile(join(dir, 'training-reward.svg'), 'utf8')).toBe(svg);
      expect(pngSize(await readFile(join(dir, 'training-reward.png')))).toEqual({ signature: true, width: 40, height: 20 });
    });
  });

  describe('having a capability-only report', () => {
    it('should leave out the sections and figures of the axes it lacks', async () => {
      const dir = await tempDir();
      const { markdown } = await writeReport([fixtureReport('solo', 1, { handoff: undefined, drift: undefined, legibility: undefined })], dir, { png: false });
      expect(markdown).toContain('## Solo capability');
      expect(markdown).not.toMatch(/## (Handoff|Drift|Junior legibility|Significance)/);
      expect((await readdir(dir)).sort()).toEqual(['capability-pass-at-k.svg', 'report.json', 'report.md']);
    });
  });

  describe('having no reports, mismatched labels or two reports under one label', () => {
    it('should refuse with INPUT_INVALID', async () => {
      const dir = await tempDir();
      expect((await rejection(writeReport([], dir))).code).toBe('INPUT_INVALID');
      expect((await rejection(writeReport([grpo], dir, { labels: ['a', 'b'] }))).code).toBe('INPUT_INVALID');
      expect((await rejection(writeReport([grpo, trl], dir, { labels: ['same', 'same'] }))).code).toBe('INPUT_INVALID');
      expect(await readdir(dir)).toEqual([]);
    });
  });
});
