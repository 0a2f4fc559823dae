/** Quick start: `node --import tsx examples/proposer-critic/play.ts [matches] [seed]` on the shipped base. */
import { Decoder } from '../../native/runtime/decoder.ts';
import { resolveModelDir } from '../../plugins/policies/default-model.ts';
import { loadPolicy } from '../../plugins/policies/load-policy.ts';
import { taskByName } from '../../plugins/tasks/registry.ts';
import { playSequentialMatches } from '../sequential/play-sequential-matches.ts';
import { proposerCritic } from './proposer-critic.ts';

const [matches = 32, seed = 0] = process.argv.slice(2).map(Number);
const { policy, tokenizer } = await loadPolicy(resolveModelDir('default'));
const decoder = await Decoder.create([policy], { batch: Math.min(matches, 64), maxLen: policy.config.maxPositionEmbeddings });
const arena = { game: proposerCritic, decoder, tokenizer: tokenizer!, seats: { proposer: 0, critic: 0 }, stopTokens: policy.config.eosTokenIds, sampling: { temperature: 0.6, topP: 1 } };
const lines = await playSequentialMatches(arena, (await taskByName('arithmetic')).problems('test', matches), seed);
await decoder.release();
for (const line of lines) process.stdout.write(`${JSON.stringify(line)}\n`);
const paid = (role: 'proposer' | 'critic') => lines.reduce((sum, line) => sum + line.outcome[role], 0) / lines.length;
process.stderr.write(`${lines.length} matches: proposer correct ${paid('proposer').toFixed(3)}, critic correct ${paid('critic').toFixed(3)}\n`);
