/**
 * The tandem paper's future work (§6): one senior trained by RL against a pool of diverse juniors instead of one,
 * then evaluated with each junior held out. For every junior J_k, a senior is trained against the pool without it
 * (a PFSP league on tandem, the senior always in the senior seat), and one senior is trained against the whole pool;
 * then a fixtures tournament has the held-out senior, the whole-pool senior and the untrained base each co-write with
 * J_k on the same problems and coins. Juniors are model directories or LoRA adapter directories (PEFT's layout, over
 * their recorded base) given on the command line; with none, three are made from the shipped base by seeded noise of
 * growing size (weaker and weaker partners): full copies, or with --adapter-juniors rank-16 adapters on the base
 * whose B matrices carry the noise (every adapter junior and the base entrant then share the base's weights in memory).
 *
 *   node --import tsx examples/tournaments/junior-pool.ts [--out DIR] [--rounds N] [--seed S] [--adapter-juniors] [JUNIOR_DIR ...]
 *
 * Writes DIR/summary.md and DIR/summary.json; every tournament's own directory (standings, payoff, plots,
 * transcripts) is kept under DIR.
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { composePlugins, runTournament, TournamentConfigSchema, type TournamentConfigInput } from '../../index.ts';
import { writeNoiseAdapter, writePerturbedCopies } from '../../lab/tournament/bench/perturbed-copies.ts';
import { markdownTable } from '../../lab/reports/markdown.ts';
import { writeFileAtomically } from '../../native/io/files.ts';
import { resolveModelDir } from '../../plugins/policies/default-model.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    out: { type: 'string', default: 'runs/junior-pool' },
    rounds: { type: 'string', default: '4' },
    seed: { type: 'string', default: '0' },
    'adapter-juniors': { type: 'boolean', default: false },
  },
});
const out = values.out;
const rounds = Number(values.rounds);
const seed = Number(values.seed);
const catalog = await composePlugins();

const NOISE = [0.02, 0.05, 0.1];
const juniors: string[] =
  positionals.length > 0
    ? positionals
    : values['adapter-juniors']
      ? await Promise.all(NOISE.map((scale, i) => writeNoiseAdapter(resolveModelDir('default'), join(out, 'juniors', `adapter-${scale}`), { seed: 100 + i, initStdB: scale })))
      : (await Promise.all(NOISE.map((scale, i) => writePerturbedCopies(resolveModelDir('default'), join(out, 'juniors'), 1, { seed: 100 + i, scale, prefix: `noise-${scale}-` })))).flat();
const names = juniors.map((_, k) => `junior${k}`);
const shared: Partial<TournamentConfigInput> = { seed, problemsPerRound: 4, groupSize: 4, maxNewTokens: 128 };
const tandem = [{ game: 'tandem', swapSeats: false }];

/** A senior trained from the base against the juniors except `heldOut`; returns its final weights' directory. */
async function trainSenior(label: string, heldOut: number | undefined): Promise<string> {
  const pool = juniors.flatMap((init, k) => (k === heldOut ? [] : [{ name: names[k], init }]));
  const config = TournamentConfigSchema.parse({
    ...shared,
    entrants: [{ name: 'senior', init: 'default', trainable: true, schedule: { lr: 1e-4 } }, ...pool],
    games: tandem,
    format: { kind: 'league', rounds, opponents: pool.length, weighting: 'variance' },
  });
  const dir = join(out, `train-${label}`);
  await runTournament({ out: dir, config, catalog, resume: 'if-checkpoint', onRound: (r, n) => process.stderr.write(`${label}: round ${r}/${n}\n`) });
  return join(dir, 'state', 'policies', 'senior');
}

const whole = await trainSenior('whole-pool', undefined);
const rows: { junior: string; dir: string; heldOut: number | null; wholePool: number | null; base: number | null }[] = [];
for (const [k, junior] of juniors.entries()) {
  const heldOut = await trainSenior(`without-${names[k]}`, k);
  const config = TournamentConfigSchema.parse({
    ...shared,
    problemsPerRound: 16,
    entrants: [
      { name: 'held-out-senior', init: heldOut },
      { name: 'whole-pool-senior', init: whole },
      { name: 'base', init: 'default' },
      { name: names[k], init: junior },
    ],
    games: tandem,
    format: { kind: 'fixtures', pairings: [['held-out-senior', names[k]], ['whole-pool-senior', names[k]], ['base', names[k]]] },
  });
  const { standings } = await runTournament({ out: join(out, `eval-${names[k]}`), config, catalog, resume: 'if-checkpoint' });
  const score = (name: string) => standings.find((s) => s.entrant === name)?.score ?? null;
  rows.push({ junior: names[k], dir: junior, heldOut: score('held-out-senior'), wholePool: score('whole-pool-senior'), base: score('base') });
}

const cell = (value: number | null) => (value === null ? '—' : value.toFixed(3));
const table = markdownTable(
  ['junior', 'model', 'senior trained without it', 'senior trained with it', 'untrained base'],
  rows.map((row) => [row.junior, row.dir, cell(row.heldOut), cell(row.wholePool), cell(row.base)]),
);
await writeFileAtomically(
  join(out, 'summary.md'),
  `# A senior trained against a pool of juniors, each junior held out\n\nTandem accuracy co-writing with the junior (mean reward over 16 problems × 4 matches, the same problems and coins for the three seniors), after ${rounds} league rounds of training.\n\n${table}\n`,
);
await writeFileAtomically(join(out, 'summary.json'), `${JSON.stringify({ rounds, seed, rows }, null, 2)}\n`);
process.stdout.write(`${table}\n`);
