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
import { Decoder } from '../native/runtime/decoder.ts';
import { resolveModelDir } from '../plugins/policies/default-model.ts';
import { loadPolicy } from '../plugins/policies/load-policy.ts';
import { taskByName } from '../plugins/tasks/registry.ts';
import { trainingSeeds, validationSeeds } from '../engine/match/match-seeds.ts';
import { arenaFor, playMatches } from '../engine/match/play-matches.ts';
import { TrainConfigSchema } from '../engine/trainer/train-config.ts';
import { stepProblems } from '../engine/trainer/trainer.ts';
import { validate } from '../engine/trainer/validate.ts';

const [seniorDir, configFile, mode, ...args] = process.argv.slice(2);
const config = parseConfig(TrainConfigSchema, { ...(await readConfigFile(configFile)), game: 'tandem' }, configFile);
const junior = await loadPolicy(resolveModelDir(config.model, config.task), 'junior');
const senior = seniorDir === 'base' ? { ...junior.policy, name: 'senior' } : (await loadPolicy(seniorDir, 'senior')).policy;
const tokenizer = junior.tokenizer!;
const batch = mode === 'train' ? config.problemsPerStep * config.groupSize : 64;
const decoder = await Decoder.create([senior, junior.policy], { batch, maxLen: senior.config.maxPositionEmbeddings });
const arena = arenaFor(tandemGame({ ...config.tandem, shareBand: [0, 1] }), decoder, tokenizer, senior.config.eosTokenIds, {
  temperature: config.temperature,
  topP: config.topP,
  maxNewTokens: config.maxNewTokens,
});
const task = await taskByName(config.task);
const print = (line: object) => process.stdout.write(`${JSON.stringify({ senior: seniorDir, ...line })}\n`);

if (mode === 'train') {
  const [from, to] = args.map(Number);
  for (let step = from; step < to; step++) {
    const problems = stepProblems(task, config, step * config.problemsPerStep);
    const matches = await playMatches(arena, problems, config.groupSize, trainingSeeds(config.seed, step), `step-${step}`);
    const rewards = matches.map((match) => (match.verdict.correct ? 1 : 0));
    print({ step: step + 1, reward_mean: rewards.reduce((a: number, b) => a + b, 0) / rewards.length, rewards });
  }
} else {
  for (const step of args.map(Number)) print({ step, ...(await validate(arena, task, config.validationProblems, validationSeeds(config.seed, step))) });
}
await decoder.release();
