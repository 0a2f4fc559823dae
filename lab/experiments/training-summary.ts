import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isMissingFileError } from '../../native/io/files.ts';
import { markdownTable } from '../reports/markdown.ts';
import { linePlot } from '../reports/plots/line-plot.ts';
import type { Figure } from '../reports/report-plots.ts';
import type { MetricsLine } from '../../engine/trainer/metrics-line.ts';
import { METRICS_FILE } from '../../engine/trainer/trainer.ts';
import { GAME_LABELS, type TrainedSenior } from './experiment-config.ts';

const WINDOW = 5;

/** A markdown table of each training: the checkpoint evaluated, training reward early and late, KL to the junior, time. */
export async function trainingSummary(out: string, seniors: readonly TrainedSenior[]): Promise<string> {
  const rows: string[][] = [];
  for (const senior of seniors) {
    const lines = await metricsOf(join(out, senior.game, METRICS_FILE));
    const window = Math.min(WINDOW, lines.length);
    const meanOf = (slice: readonly MetricsLine[], pick: (line: MetricsLine) => number | null) => {
      const values = slice.map(pick).filter((v): v is number => v !== null);
      return values.length === 0 ? '–' : (values.reduce((a, v) => a + v, 0) / values.length).toFixed(3);
    };
    rows.push([
      GAME_LABELS[senior.game],
      String(lines.length),
      `${senior.selected} (step ${senior.step})`,
      meanOf(lines.slice(0, window), (l) => l.roles.senior.reward_mean),
      meanOf(lines.slice(-window), (l) => l.roles.senior.reward_mean),
      meanOf(lines.slice(-window), (l) => l.policies.senior?.kl_to_junior ?? null),
      meanOf(lines.slice(-window), (l) => l.roles.senior.share ?? null),
      lines.reduce((a, l) => a + l.seconds, 0).toFixed(0),
    ]);
  }
  return markdownTable(
    ['senior', 'steps', 'evaluated checkpoint', `training reward, first ${WINDOW} steps`, `last ${WINDOW} steps`, `KL to junior, last ${WINDOW}`, `senior share, last ${WINDOW}`, 'training wall (s)'],
    rows,
  ).concat(`\n\n(Training runs are in ${seniors.map((s) => `\`${s.game}/\``).join(', ')}: metrics.jsonl, transcripts.jsonl, checkpoints.)`);
}

/** Training reward per step of each game (Figure 5a of the paper): solo reward for GRPO and KL-Reg, team reward for TRL. */
export async function trainingRewardFigure(out: string, seniors: readonly TrainedSenior[]): Promise<Figure | undefined> {
  const series = [];
  for (const senior of seniors) {
    const lines = await metricsOf(join(out, senior.game, METRICS_FILE));
    if (lines.length > 0) series.push({ label: GAME_LABELS[senior.game], points: lines.map((l) => ({ x: l.step, y: l.roles.senior.reward_mean })) });
  }
  if (series.length === 0) return undefined;
  return {
    name: 'training-reward',
    caption: 'Training reward per step (GRPO and KL-Reg: solo; TRL: the team with the junior)',
    svg: linePlot(series, {
      title: 'Training reward per step',
      subtitle: 'mean over the step’s matches; GRPO and KL-Reg solo, TRL co-written with the junior; same problems each step',
      xLabel: 'optimizer step',
      yLabel: 'reward (fraction correct)',
      yDomain: [0, 1],
    }),
  };
}

async function metricsOf(path: string): Promise<MetricsLine[]> {
  try {
    return (await readFile(path, 'utf8'))
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as MetricsLine);
  } catch (error) {
    if (isMissingFileError(error)) return [];
    throw error;
  }
}
