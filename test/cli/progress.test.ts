import { describe, expect, it } from 'vitest';
import { countProgress, progressReporter, stepReporter } from '../../cli/progress.ts';
import type { MetricsLine } from '../../engine/trainer/metrics-line.ts';

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

const line = (step: number, seconds: number): MetricsLine => ({ step, seconds, tokens: 10, seats: { senior: 'senior' }, trains: ['senior'], roles: { senior: { reward_mean: 0.5 } as MetricsLine['roles'][string] }, policies: {} });

describe('stepReporter', () => {
  describe('having a log instead of a terminal, and a final comparison after the last step', () => {
    it('should say the first step is under way at once, give an ETA from the steps timed, and say what runs after the last', () => {
      const { stream, lines } = logStream();
      const steps = stepReporter('tandem', ['senior'], 64, stream);
      steps.begin(3, 0);
      steps.step(line(1, 10), 3, false);
      steps.step(line(2, 20), 3, true);
      steps.step(line(3, 30), 3, true);
      steps.stop();
      expect(lines()).toEqual([
        'train tandem: step 1 of 3 under way',
        'train tandem step 1/3  senior reward 0.500  10.0 s  eta 20.0 s + the final comparison',
        'train tandem step 2/3  senior reward 0.500  20.0 s  checkpointed  eta 15.0 s + the final comparison',
        'train tandem step 3/3  senior reward 0.500  30.0 s  checkpointed',
        'comparing the trained policies with their start on 64 held-out problems…',
      ]);
    });
  });
});

describe('countProgress', () => {
  describe('having a log instead of a terminal', () => {
    it('should write lines, never a carriage return, at every tenth of each label', () => {
      let text = '';
      const stream = { isTTY: false, write: (chunk: string) => ((text += chunk), true) } as unknown as NodeJS.WriteStream;
      const progress = countProgress(stream);
      for (let done = 1; done <= 20; done++) progress.update('capability', done, 20);
      progress.update('handoff word', 1, 4);
      progress.stop();
      expect(text).not.toContain('\r');
      expect(text.trim().split('\n')).toEqual([...[1, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20].map((done) => `capability ${done}/20`), 'handoff word 1/4']);
    });
  });
});
