/**
 * Plays a tandem run's own matches again with another senior, so a trained senior and the base meet the same
 * problems and coins. CONFIG is the run's `--config` file (problems per step, group size, training set, sampling):
 *   node --import tsx examples/paired-tandem-eval.ts <senior dir | base> CONFIG train <from> <to>
 *   node --import tsx examples/paired-tandem-eval.ts <senior dir | base> CONFIG validate <step>...
 * One JSON line per step on stdout; `train` lines carry each match's reward, in the run's row order. The base as
 * senior reproduces a run's step 1 exactly.
 */
import { parseConfig } from '../core/parse-config.ts';
import { readConfigFile } from '../cli/config-file.ts';
import { tandemGame } from '../games/tandem.ts';
import { gradeMath } from '../plugins/graders/math/grade-math.ts';
import { taskByName } from '../plugins/tasks/registry.ts';
import { arenaFor } from '../engine/match/arena.ts';
import { DecoderPool } from '../engine/match/decoder-pool.ts';
import { trainingSeeds, validationSeeds } from '../engine/match/match-seeds.ts';
import { playMatches } from '../engine/match/play-matches.ts';
import { PolicyPool } from '../engine/policies/policy-pool.ts';
import { TrainConfigSchema } from '../engine/trainer/train-config.ts';
import { stepProblems, tasksOfRun } from '../engine/trainer/trainer.ts';
import { validate } from '../engine/trainer/validate.ts';

const [seniorDir, configFile, mode, ...args] = process.argv.slice(2);
const config = parseConfig(TrainConfigSchema, { ...(await readConfigFile(configFile)), game: 'tandem' }, configFile);
const pool = await PolicyPool.load(
  [
    { name: 'senior', init: seniorDir === 'base' ? config.model : seniorDir, trainable: false },
    { name: 'junior', init: config.model, trainable: false },
  ],
  { task: config.task },
);
const senior = pool.policy('senior');
const rows = mode === 'train' ? config.problemsPerStep * config.groupSize : 64;
const decoders = new DecoderPool(pool, { rows, maxLen: senior.config.maxPositionEmbeddings });
const game = tandemGame({ ...config.knobs, shareBand: [0, 1] }, gradeMath);
const arena = arenaFor(game, decoders, pool.tokenizer, senior.config.eosTokenIds, { temperature: config.temperature, topP: config.topP, maxNewTokens: config.maxNewTokens });
const seats = game.rotation.at(0).seats;
const { task } = tasksOfRun(await taskByName(config.task), config);
const print = (line: object) => process.stdout.write(`${JSON.stringify({ senior: seniorDir, ...line })}\n`);

if (mode === 'train') {
  const [from, to] = args.map(Number);
  for (let step = from; step < to; step++) {
    const problems = stepProblems(task, config, step * config.problemsPerStep);
    const matches = await playMatches(arena, { problems, copies: config.groupSize, seats, seeds: trainingSeeds(config.seed, step), label: `step-${step}` });
    const rewards = matches.map((match) => match.rewards.outcome.senior);
    print({ step: step + 1, reward_mean: rewards.reduce((a: number, b) => a + b, 0) / rewards.length, rewards });
  }
} else {
  for (const step of args.map(Number)) print({ step, ...(await validate(arena, task, 'validation', config.validationProblems, validationSeeds(config.seed, step), seats, 'senior')) });
}
await decoders.release();
