import { readFileSync } from 'node:fs';
import { spawned, post } from './test/support/raw-http.ts';
import { TRAINER_API } from './engine/remote/trainer-wire.ts';
const env = JSON.parse(process.argv[2] ?? '{}');
const server = spawned(['serve-trainer', '--port', '0', '--threads', '1', '--task', 'arithmetic', '--log', '/tmp/xx.log'], { LUDUS_TOKEN: 'ludus-test-token-0123456789', ...env });
const { url } = await server.line;
const rss = () => Math.round(Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${server.child.pid}/status`, 'utf8'))![1]) / 1024);
const call = async (op: string, body: Record<string, unknown>) => { await post(url, `${TRAINER_API}/${op}`, body); return (await post(url, `${TRAINER_API}/retrieve_future`, { request_id: body.request_id, wait_ms: 60000 })).json as any; };
const datum = (n: number, seed: number) => ({ model_input: { chunks: [{ type: 'encoded_text', tokens: Array.from({ length: n }, (_, i) => (seed * 7 + i * 13) % 300) }] }, loss_fn_inputs: { target_tokens: Array.from({ length: n }, (_, i) => (seed + i * 5) % 300), weights: Array(n).fill(1), logprobs: Array(n).fill(-5), advantages: Array(n).fill(0.5) } });
const out = [`start ${rss()}`];
for (const tag of ['a', 'b', 'c']) {
  const id = (await call('create_model', { request_id: `${tag}c`, base_model: 'default', learner: { objective: 'policy-gradient' } })).result.model_id;
  for (let s = 0; s < (tag === 'a' ? 1 : 25); s++) {
    await call('forward_backward', { request_id: `${tag}f${s}`, model_id: id, loss_fn: 'ppo', data: [datum(24, s), datum(24, s + 1)] });
    await call('optim_step', { request_id: `${tag}o${s}`, model_id: id });
    if (s % 5 === 4) await call('save_weights_for_sampler', { request_id: `${tag}s${s}`, model_id: id, name: `v${s}`, return_weights: true });
  }
  await post(url, `${TRAINER_API}/unload_model`, { model_id: id });
  await new Promise((r) => setTimeout(r, 1000));
  out.push(`${tag} ${rss()}`);
}
console.log(JSON.stringify(env), out.join(' '));
await server.stop();
