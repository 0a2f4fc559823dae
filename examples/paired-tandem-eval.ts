/**
 * Plays a tandem run's own matches again with another senior, so a trained senior and the base meet the same
 * problems and coins:
 *   node --import tsx examples/paired-tandem-eval.ts <senior dir | base> train <from> <to> [problemsPerStep] [groupSize] [seed]
 *   node --import tsx examples/paired-tandem-eval.ts <senior dir | base> validate <step>... (128 test problems each, seed 0)
 * One JSON line per step on stdout. The base as senior reproduces a run's step 1 exactly.
 */
import { tandemGame } from '../games/tandem.ts';
import { Decoder } from '../native/runtime/decoder.ts';
import { resolveModelDir } from '../plugins/policies/default-model.ts';
import { loadPolicy } from '../plugins/policies/load-policy.ts';
import { taskByName } from '../plugins/tasks/registry.ts';
import { wordBoundary } from '../plugins/tokenizers/word-boundary.ts';
import { trainingSeeds, validationSeeds } from '../plugins/training/match-seeds.ts';
import { playMatches } from '../plugins/training/play-matches.ts';
import { stepBoundaryIds } from '../plugins/training/step-boundary.ts';
import { validate } from '../plugins/training/validate.ts';

const [seniorDir, mode, ...args] = process.argv.slice(2);
const [from, to, problemsPerStep = 8, groupSize = 8, seed = 0] = args.map(Number);
const junior = await loadPolicy(resolveModelDir('default'), 'junior');
const senior = seniorDir === 'base' ? { ...junior.policy, name: 'senior' } : (await loadPolicy(seniorDir, 'senior')).policy;
const tokenizer = junior.tokenizer!;
const decoder = await Decoder.create([senior, junior.policy], { batch: mode === 'train' ? problemsPerStep * groupSize : 64, maxLen: senior.config.maxPositionEmbeddings });
const arena = {
  game: tandemGame({ shareBand: [0, 1] }),
  decoder,
  tokenizer,
  wordBoundary: Array.from(wordBoundary(tokenizer).ids),
  stepBoundary: stepBoundaryIds(tokenizer),
  stopTokens: senior.config.eosTokenIds,
  sampling: { temperature: 0.6, topP: 1, maxNewTokens: 224 },
};
const task = await taskByName('arithmetic');
const print = (line: object) => process.stdout.write(`${JSON.stringify({ senior: seniorDir, ...line })}\n`);

if (mode === 'train') {
  for (let step = from; step < to; step++) {
    const problems = Array.from({ length: problemsPerStep }, (_, j) => task.sample('train', step * problemsPerStep + j));
    const matches = await playMatches(arena, problems, groupSize, trainingSeeds(seed, step), `step-${step}`);
    print({ step: step + 1, reward_mean: matches.filter((match) => match.verdict.correct).length / matches.length });
  }
} else {
  for (const step of args.map(Number)) print({ step, ...(await validate(arena, task, 128, validationSeeds(0, step))) });
}
await decoder.release();
