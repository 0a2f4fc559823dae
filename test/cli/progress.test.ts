import { describe, expect, it } from 'vitest';
import { progressReporter } from '../../cli/progress.ts';

/** A log file standing in for stderr: not a terminal, so no bar. */
function logStream(): { stream: NodeJS.WriteStream; lines: () => string[] } {
  let text = '';
  const stream = { isTTY: false, write: (chunk: string) => ((text += chunk), true) } as unknown as NodeJS.WriteStream;
  return { stream, lines: () => text.trim().split('\n') };
}

describe('progressReporter', () => {
  describe('having a log instead of a terminal', () => {
    it('should write a line when the phase changes and at every tenth of the way, then one when done', () => {
      const { stream, lines } = logStream();
      const progress = progressReporter('pretrain arithmetic', stream);
      progress.update({ phase: 'training the tokenizer', done: 0, total: 40 });
      for (let step = 1; step <= 40; step++) progress.update({ phase: 'supervised training', done: step, total: 40, detail: `step ${step}/40` });
      progress.update({ phase: 'saving the model', done: 40, total: 40 });
      progress.stop();
      expect(lines()).toEqual([
        'pretrain arithmetic: training the tokenizer (overall 0%)',
        'pretrain arithmetic: supervised training (overall 2%, step 1/40)',
        ...[4, 8, 12, 16, 20, 24, 28, 32, 36, 40].map((step) => `pretrain arithmetic: supervised training (overall ${(step * 100) / 40}%, step ${step}/40)`),
        'pretrain arithmetic: saving the model (overall 100%)',
        'pretrain arithmetic: done (overall 100%)',
      ]);
    });
  });
});
