import { taskByName } from '../tasks/registry.ts';
import { trainBpe } from './bpe-trainer.ts';

export interface BpeBenchReport {
  readonly tasks: readonly string[];
  readonly problems: number;
  readonly megabytes: number;
  readonly merges: number;
  readonly seconds: number;
  readonly megabytesPerSecond: number;
}

/** Byte-level BPE training on the synthetic tasks' worked solutions, the text `ludus pretrain` trains its tokenizer on. */
export async function benchBpe(options: { tasks: readonly string[]; problems: number; merges: number }): Promise<BpeBenchReport> {
  const corpus: string[] = [];
  for (const name of options.tasks) {
    const task = await taskByName(name);
    for (const problem of task.problems('train', options.problems)) corpus.push(`${problem.prompt}${problem.solution}`);
  }
  const started = performance.now();
  const json = trainBpe(corpus, { vocabSize: options.merges + 258 });
  const seconds = (performance.now() - started) / 1000;
  const megabytes = corpus.reduce((sum, text) => sum + Buffer.byteLength(text), 0) / 2 ** 20;
  return { tasks: options.tasks, problems: corpus.length, megabytes: Number(megabytes.toFixed(2)), merges: json.model.merges.length, seconds: Number(seconds.toFixed(2)), megabytesPerSecond: Number((megabytes / seconds).toFixed(2)) };
}
