/**
 * How often two policies sample different answers on the same seeds (issue 25: whether Agon's adapters A and B have
 * come apart): each policy answers the same test problems with the same per-row seeds at temperature 1, and the
 * share of (problem, sample) pairs whose boxed answers differ is printed, with each policy's accuracy.
 *
 *   npx tsx tools/agon-divergence.ts RUN/checkpoint/policies/A RUN/checkpoint/policies/B [problems=64] [samples=4]
 */
import { gradeMath } from '../plugins/graders/math/grade-math.ts';
import { lastBoxed } from '../plugins/graders/math/boxed.ts';
import { sampleRollouts } from '../lab/eval/sample-rollouts.ts';
import { loadPolicy } from '../plugins/policies/load-policy.ts';
import { taskByName } from '../plugins/tasks/registry.ts';

const [a, b, problemCount = '64', sampleCount = '4'] = process.argv.slice(2);
if (!a || !b) throw new Error('usage: tools/agon-divergence.ts POLICY_A POLICY_B [problems] [samples]');
const problems = (await taskByName('arithmetic')).problems('test', Number(problemCount));
const answers = [];
for (const dir of [a, b]) {
  const { policy, tokenizer } = await loadPolicy(dir);
  if (!tokenizer) throw new Error(`${dir}: no tokenizer`);
  const rollouts = await sampleRollouts({
    policies: [policy], tokenizer, problems, samples: Number(sampleCount), grade: gradeMath, seed: 0,
    temperature: 1, topP: 1, maxNewTokens: 128, stopTokens: policy.config.eosTokenIds, batch: 32, threads: 2,
  });
  answers.push(rollouts.flat().map((r) => ({ answer: lastBoxed(tokenizer.decode(r.tokens)) ?? null, correct: r.correct })));
}
const [x, y] = answers;
const differ = x.filter((r, i) => r.answer !== y[i].answer).length;
const accuracy = (rs: typeof x) => rs.filter((r) => r.correct).length / rs.length;
console.log(JSON.stringify({ pairs: x.length, different_answers: differ / x.length, accuracy_a: accuracy(x), accuracy_b: accuracy(y) }));
