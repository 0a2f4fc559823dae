import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { SeedSummaryRow } from '../../lab/experiments/seeds-summary.ts';

/**
 * The calc game's learning result, seed by seed, as `ludus experiment calc-tool` recorded it (report.json, copied into
 * docs/experiments/calc-tool/): what the README and docs/agentic-turns.md claim must hold in every training seed, and
 * the numbers they print must be the recorded ones.
 */
const dir = new URL('../../docs/experiments/calc-tool/', import.meta.url);

async function recorded() {
  const report = JSON.parse(await readFile(new URL('report.json', dir), 'utf8')) as { seeds: number[]; summary: SeedSummaryRow[] };
  const row = (model: string, metric: string) => report.summary.find((r) => r.model === model && r.metric === metric)!;
  const perSeed = (model: string, metric: string) => row(model, metric).perSeed.map((s) => s.value);
  return { report, row, perSeed };
}

describe('the calc-tool result', () => {
  it('should rest on at least 3 training seeds', async () => {
    const { report } = await recorded();
    expect(report.seeds.length).toBeGreaterThanOrEqual(3);
  });

  it('should lift held-out accuracy by at least 20 points in every seed, with the call rate up and malformed calls down', async () => {
    const { perSeed } = await recorded();
    const base = perSeed('base', 'accuracy');
    const trained = perSeed('RL with the tool', 'accuracy');
    trained.forEach((value, s) => expect(value - base[s]).toBeGreaterThanOrEqual(0.2));
    const calls = [perSeed('base', 'tool call rate'), perSeed('RL with the tool', 'tool call rate')];
    calls[1].forEach((value, s) => expect(value).toBeGreaterThan(calls[0][s]));
    const malformed = [perSeed('base', 'malformed calls a match'), perSeed('RL with the tool', 'malformed calls a match')];
    malformed[1].forEach((value, s) => expect(value).toBeLessThan(malformed[0][s]));
  });

  it('should print the recorded numbers in the experiment page and the README', async () => {
    const { row } = await recorded();
    const page = await readFile(new URL('README.md', dir), 'utf8');
    const readme = await readFile(new URL('../../../README.md', dir), 'utf8');
    const pct = (value: number) => (100 * value).toFixed(1);
    for (const model of ['base', 'base (no tool)', 'RL with the tool', 'RL without the tool']) {
      for (const metric of ['accuracy', 'tool call rate']) {
        const r = row(model, metric);
        expect(page).toContain(`${pct(r.mean)} ± ${pct(r.se ?? 0)}`);
        expect(page).toContain(r.perSeed.map((s) => pct(s.value)).join(' / '));
      }
    }
    const base = row('base', 'accuracy');
    const trained = row('RL with the tool', 'accuracy');
    const control = row('RL without the tool', 'accuracy');
    expect(readme).toContain(`${pct(base.mean)} → **${pct(trained.mean)} ± ${pct(trained.se ?? 0)}**`);
    expect(readme).toContain(`without the tool ${pct(control.mean)}`);
  });
});
