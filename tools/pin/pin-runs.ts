/**
 * Writes test/fixtures/pinned-runs/<game>.json: metrics, validation and transcripts of a tiny fixed-seed run of each
 * built-in RL game, taken before the multi-policy redesign, so the redesign can be held to the same results.
 * Run: node --import tsx tools/pin/pin-runs.ts
 */
import { mkdtemp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rlGameByName } from '../../games/registry.ts';
import { TrainConfigSchema } from '../../engine/trainer/train-config.ts';
import { train } from '../../engine/trainer/trainer.ts';

export const PINNED_GAMES = ['tandem', 'grpo', 'kl-reg'] as const;
export const pinnedConfig = (game: string) =>
  ({ game, steps: 3, problemsPerStep: 2, groupSize: 4, maxNewTokens: 64, checkpointEvery: 3, validateEvery: 2, validationProblems: 4, schedule: { lr: 1e-4 } });

const jsonl = async (path: string) => (await readFile(path, 'utf8')).split('\n').filter((l) => l !== '').map((l) => JSON.parse(l));

for (const game of PINNED_GAMES) {
  const config = TrainConfigSchema.parse(pinnedConfig(game));
  const out = await mkdtemp(join(tmpdir(), 'ludus-pin-'));
  await train({ out, config, game: rlGameByName(game, config), threads: 1 });
  const metrics = (await jsonl(join(out, 'metrics.jsonl'))).map(({ seconds: _, ...rest }) => rest);
  const transcripts = (await jsonl(join(out, 'transcripts.jsonl'))).map((l) => ({
    step: l.step, matchId: l.matchId, promptIds: l.promptIds, responseIds: l.responseIds, authors: l.authors, roles: l.roles,
    logprobs: l.logprobs, outcome: l.outcome, correct: l.correct, answer_present: l.answer_present, finish: l.finish, scheduleHash: l.scheduleHash,
  }));
  const validation = await jsonl(join(out, 'validation.jsonl'));
  await mkdir('test/fixtures/pinned-runs', { recursive: true });
  await writeFile(`test/fixtures/pinned-runs/${game}.json`, `${JSON.stringify({ config: pinnedConfig(game), metrics, validation, transcripts })}\n`);
  process.stderr.write(`${game}: ${metrics.map((m) => m.reward_mean).join(' ')}\n`);
}
