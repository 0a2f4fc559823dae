import { describe, expect, it } from 'vitest';
import { DEFAULT_PLOT_SIZE, frameOf } from '../../../lab/reports/plots/chart.ts';
import { displacementScatter } from '../../../lab/reports/plots/displacement-scatter.ts';
import { linePlot } from '../../../lab/reports/plots/line-plot.ts';
import { passAtKPlot, type PassAtKSeries } from '../../../lab/reports/plots/pass-at-k-plot.ts';
import { svgToPng } from '../../../lab/reports/plots/rasterize.ts';
import { survivalPlot } from '../../../lab/reports/plots/survival-plot.ts';
import { elements, pngSize, texts } from './svg-query.ts';

// The default frame: x from 64 to 550 px, y from 368 (bottom) to 44 (top) px.
const frame = frameOf(DEFAULT_PLOT_SIZE);

const twoModels: PassAtKSeries[] = [
  { label: 'base', points: [{ k: 1, value: 0.5, se: 0.1 }, { k: 2, value: 0.6, se: 0.1 }, { k: 4, value: 0.75, se: 0.05 }] },
  { label: 'TRL <senior> & co', points: [{ k: 1, value: 0.25, se: 0 }, { k: 2, value: 0.5, se: 0 }, { k: 4, value: 1, se: 0 }] },
];

describe('passAtKPlot', () => {
  describe('having two models at k = 1, 2, 4 and the y range fixed to [0, 1]', () => {
    const svg = passAtKPlot(twoModels, { title: 'Capability', yDomain: [0, 1] });

    it('should place k on a log2 axis and pass@k linearly: k = 1, 2, 4 at the left edge, the middle and the right edge', () => {
      expect(frame).toEqual({ left: 64, top: 44, right: 550, bottom: 368 });
      const points = elements(svg, 'circle', 'point').map((c) => [Number(c.cx), Number(c.cy)]);
      expect(points).toEqual([
        [64, 206],
        [307, 173.6],
        [550, 125],
        [64, 287],
        [307, 206],
        [550, 44],
      ]);
    });

    it('should shade one closed band per model spanning value ± SE', () => {
      const bands = elements(svg, 'path', 'band');
      expect(bands).toHaveLength(2);
      // area(): upper edge left to right (value + se), then lower edge right to left (value − se), closed.
      expect(bands[0].d).toBe('M64,173.6L307,141.2L550,108.8L550,141.2L307,206L64,238.4Z');
      expect(bands[0]['fill-opacity']).toBe('0.18');
      expect(elements(svg, 'path', 'line').map((p) => p.d)).toEqual(['M64,206L307,173.6L550,125', 'M64,287L307,206L550,44']);
    });

    it('should label the axes with the ks and the legend with every model, escaped', () => {
      expect(elements(svg, 'g', 'tick').map((t) => t['data-value']).slice(0, 3)).toEqual(['1', '2', '4']);
      expect(elements(svg, 'g', 'legend-entry').map((e) => e['data-label'])).toEqual(['base', 'TRL &lt;senior&gt; &amp; co']);
      expect(texts(svg, 'title')).toEqual(['Capability']);
      expect(texts(svg, 'axis-label')).toEqual(['k (samples per problem, log scale)', 'pass@k']);
      expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg" width="720" height="420"')).toBe(true);
    });

    it('should shorten a legend label too long for the legend to its tail, keeping it whole in a tooltip', () => {
      const long = passAtKPlot([{ label: '/runs/experiment/tandem/checkpoint', points: [{ k: 1, value: 0.5, se: 0 }] }], { title: 't' });
      expect(texts(long).filter((t) => t.startsWith('…'))).toEqual(['…tandem/checkpoint']);
      expect(long).toContain('<title>/runs/experiment/tandem/checkpoint</title>');
    });

    it('should write the same bytes for the same input', () => {
      expect(passAtKPlot(twoModels, { title: 'Capability', yDomain: [0, 1] })).toBe(svg);
    });
  });

  describe('having no fixed y range', () => {
    it('should fit the bands inside the frame, never beyond [0, 1]', () => {
      const svg = passAtKPlot(twoModels, { title: 't' });
      const ticks = elements(svg, 'g', 'tick').map((t) => Number(t['data-value'])).slice(3);
      expect(Math.min(...ticks)).toBeGreaterThanOrEqual(0);
      expect(Math.max(...ticks)).toBeLessThanOrEqual(1);
      for (const circle of elements(svg, 'circle', 'point')) {
        expect(Number(circle.cy)).toBeGreaterThanOrEqual(frame.top);
        expect(Number(circle.cy)).toBeLessThanOrEqual(frame.bottom);
      }
    });
  });

  describe('having no points', () => {
    it('should refuse to draw', () => {
      expect(() => passAtKPlot([{ label: 'empty', points: [] }], { title: 't' })).toThrow(RangeError);
    });
  });
});

describe('survivalPlot', () => {
  describe('having one model whose |log-ratio| survival halves at each threshold', () => {
    it('should draw a step curve from (0, 1) with the thresholds mapped linearly', () => {
      const svg = survivalPlot(
        [
          { label: 'GRPO', points: [{ threshold: 0, fraction: 1 }, { threshold: 1, fraction: 0.5 }, { threshold: 2, fraction: 0.25 }] },
          { label: 'TRL', points: [{ threshold: 0, fraction: 1 }, { threshold: 2, fraction: 0 }] },
        ],
        { title: 'Drift' },
      );
      expect(elements(svg, 'path', 'line').map((p) => p.d)).toEqual(['M64,44L307,44L307,206L550,206L550,287', 'M64,44L550,44L550,368']);
      expect(elements(svg, 'g', 'legend-entry').map((e) => e['data-label'])).toEqual(['GRPO', 'TRL']);
      expect(elements(svg, 'path', 'band')).toEqual([]);
    });
  });

  describe('having points with standard errors on one of two models', () => {
    it('should shade a step band over fraction ± SE, clamped to [0, 1], for that model only', () => {
      const svg = survivalPlot(
        [
          { label: 'GRPO', points: [{ threshold: 0, fraction: 1, se: 0 }, { threshold: 1, fraction: 0.5, se: 0.25 }, { threshold: 2, fraction: 0.25, se: 0.5 }] },
          { label: 'TRL', points: [{ threshold: 0, fraction: 1 }, { threshold: 2, fraction: 0 }] },
        ],
        { title: 'Drift' },
      );
      // y = 368 - 324 * fraction. Upper edge left to right: 1 on [0, 1), 0.75 on [1, 2), 0.75 at 2; lower edge back
      // right to left: 0 at 2 (0.25 - 0.5 clamped), 0.25 on [1, 2), 1 on [0, 1).
      expect(elements(svg, 'path', 'band').map((p) => p.d)).toEqual(['M64,44L307,44L307,125L550,125L550,125L550,368L550,287L307,287L307,44L64,44Z']);
      expect(elements(svg, 'g', 'legend-entry')).toHaveLength(2);
      expect(elements(svg, 'path', 'line')).toHaveLength(2);
    });
  });
});

describe('displacementScatter', () => {
  describe('having one token the candidate shifts back and one it pushes further', () => {
    const svg = displacementScatter(
      [
        { x: 1, y: -1, group: 'shifts back', token: 'Ġthe' },
        { x: 2, y: 1, group: 'same direction', token: 'ĠAnswer' },
      ],
      { title: 'Displaced', xLabel: 'GRPO log-ratio', yLabel: 'TRL log-ratio' },
    );

    it('should map both axes over one symmetric range', () => {
      expect(elements(svg, 'circle', 'point').map((c) => [Number(c.cx), Number(c.cy), c['data-token']])).toEqual([
        [428.5, 287, 'Ġthe'],
        [550, 125, 'ĠAnswer'],
      ]);
    });

    it('should draw the zero lines, the y = x diagonal and a legend entry per group', () => {
      expect(elements(svg, 'line', 'zero')).toHaveLength(2);
      expect(elements(svg, 'line', 'diagonal')[0]).toMatchObject({ x1: '64', y1: '368', x2: '550', y2: '44' });
      expect(elements(svg, 'g', 'legend-entry').map((e) => e['data-label'])).toEqual(['shifts back', 'same direction']);
      expect(texts(svg, 'axis-label')).toEqual(['GRPO log-ratio', 'TRL log-ratio']);
    });

    it('should turn the diagonal to y = −x when asked', () => {
      const flipped = displacementScatter([{ x: 2, y: -2, group: 'g' }], { title: 't', xLabel: 'x', yLabel: 'y', diagonal: -1 });
      expect(elements(flipped, 'line', 'diagonal')[0]).toMatchObject({ x1: '64', y1: '44', x2: '550', y2: '368' });
    });
  });
});

describe('linePlot', () => {
  describe('having two training curves over steps 1 to 3 and y fixed to [0, 1]', () => {
    it('should map steps and values linearly, one line and legend entry per curve', () => {
      const svg = linePlot(
        [
          { label: 'GRPO', points: [{ x: 1, y: 0.5 }, { x: 3, y: 1 }, { x: 2, y: 0.75 }] },
          { label: 'TRL', points: [{ x: 1, y: 0 }, { x: 3, y: 0.25 }] },
        ],
        { title: 'Training reward', xLabel: 'step', yLabel: 'reward', yDomain: [0, 1] },
      );
      expect(elements(svg, 'path', 'line').map((p) => p.d)).toEqual(['M64,206L307,125L550,44', 'M64,368L550,287']);
      expect(elements(svg, 'g', 'legend-entry').map((e) => e['data-label'])).toEqual(['GRPO', 'TRL']);
      expect(texts(svg, 'axis-label')).toEqual(['step', 'reward']);
    });
  });
});

describe('token texts XML cannot carry', () => {
  describe('having displaced tokens that decode to control characters and a lone surrogate', () => {
    it('should write them as visible \\u escapes, so the SVG still parses and rasterizes', () => {
      const svg = displacementScatter(
        [
          { x: 1, y: -1, group: 'g', token: '\f' },
          { x: 2, y: 1, group: 'g', token: '\u0000a\ud800' },
        ],
        { title: 't', xLabel: 'x', yLabel: 'y' },
      );
      expect(elements(svg, 'circle', 'point').map((c) => c['data-token'])).toEqual(['\\u000c', '\\u0000a\\ud800']);
      expect(pngSize(svgToPng(svg, 100)).signature).toBe(true);
    });
  });
});

describe('svgToPng', () => {
  describe('having a plot and a width', () => {
    it('should return a PNG of that width at the plot’s aspect ratio', () => {
      const png = svgToPng(passAtKPlot(twoModels, { title: 'Capability' }), 360);
      expect(pngSize(png)).toEqual({ signature: true, width: 360, height: 210 });
    });
  });

  describe('having a width that is not a positive integer', () => {
    it('should refuse', () => {
      expect(() => svgToPng('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>', 0)).toThrow(RangeError);
    });
  });
});
