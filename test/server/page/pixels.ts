import type { Browser, Page } from 'playwright-core';

export type Rgb = readonly [number, number, number];

/** The distance between two colours (Euclidean in RGB, 0..441). */
export const colorDistance = (a: Rgb, b: Rgb) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);

/** `rgb(29, 78, 216)` or `#1d4ed8` as numbers. */
export function parseColor(css: string): Rgb {
  const hex = /^#([0-9a-f]{6})$/i.exec(css.trim());
  if (hex) return [0, 2, 4].map((i) => parseInt(hex[1].slice(i, i + 2), 16)) as unknown as Rgb;
  const rgb = /rgba?\((\d+),\s*(\d+),\s*(\d+)/.exec(css);
  if (!rgb) throw new Error(`not a colour: ${css}`);
  return [Number(rgb[1]), Number(rgb[2]), Number(rgb[3])];
}

/**
 * The colours Chromium rendered at page points: a screenshot of the viewport, decoded in a blank page's canvas, read
 * at each point and its 3×3 neighbourhood (points are drawn a few pixels wide; anti-aliasing blends their edges).
 */
export async function renderedColors(browser: Browser, page: Page, points: readonly { x: number; y: number }[]): Promise<Rgb[][]> {
  const png = (await page.screenshot()).toString('base64');
  const decoder = await browser.newPage();
  try {
    return await decoder.evaluate(
      async ({ png, points }) => {
        const bitmap = await createImageBitmap(await (await fetch(`data:image/png;base64,${png}`)).blob());
        const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
        const context = canvas.getContext('2d')!;
        context.drawImage(bitmap, 0, 0);
        return points.map(({ x, y }) => {
          const around: [number, number, number][] = [];
          for (let dy = -1; dy <= 1; dy++) {
            for (let dx = -1; dx <= 1; dx++) {
              const [r, g, b] = context.getImageData(Math.round(x) + dx, Math.round(y) + dy, 1, 1).data;
              around.push([r, g, b]);
            }
          }
          return around;
        });
      },
      { png, points },
    );
  } finally {
    await decoder.close();
  }
}

/** Per series of a drawn chart: its legend's colour and the page points of its data points that no other series' point is near. */
export async function seriesPoints(page: Page, figure: string): Promise<{ label: string; legend: string; points: { x: number; y: number }[] }[]> {
  return page.evaluate((selector) => {
    const node = document.querySelector(selector) as (HTMLElement & { uplot?: { data: (number | null)[][]; valToPos(v: number, scale: string): number; over: HTMLElement; series: { label: string; scale?: string }[] } }) | null;
    const chart = node?.uplot;
    if (!chart) throw new Error(`no chart at ${selector}`);
    const box = chart.over.getBoundingClientRect();
    // The legend lists the drawn series only (uPlot leaves the x series out of a non-live legend).
    const markers = Array.from(node.querySelectorAll<HTMLElement>('.u-legend .u-series .u-marker'));
    if (markers.length !== chart.series.length - 1) throw new Error(`${selector}: ${markers.length} legend markers for ${chart.series.length - 1} series`);
    const all = chart.data.slice(1).map((column, s) =>
      column.flatMap((value, i) => (value === null ? [] : [{ x: box.left + chart.valToPos(chart.data[0][i] as number, 'x'), y: box.top + chart.valToPos(value, chart.series[s + 1].scale ?? 'y') }])),
    );
    return all.map((points, s) => ({
      label: chart.series[s + 1].label,
      legend: getComputedStyle(markers[s]).borderColor,
      points: points.filter((p) => all.every((other, o) => o === s || other.every((q) => Math.hypot(q.x - p.x, q.y - p.y) > 8))),
    }));
  }, figure);
}

/**
 * Checks, in the rendered pixels, that each series of the chart is stroked in its legend's colour: at every data point
 * of it that no other series overlaps, some pixel of the point's 3×3 neighbourhood lies within `tolerance` of that
 * colour. Returns per series its label, legend colour and the closest distance found at each point (none where every
 * point of the series lies under another's: identical curves, such as tandem's shared team reward).
 */
export async function strokeColors(browser: Browser, page: Page, figure: string, tolerance = 40) {
  await page.locator(figure).scrollIntoViewIfNeeded();
  const series = await seriesPoints(page, figure);
  const colors = await renderedColors(browser, page, series.flatMap((s) => s.points));
  let at = 0;
  return series.map((s) => {
    const legend = parseColor(s.legend);
    const distances = s.points.map(() => Math.min(...colors[at++].map((pixel) => colorDistance(pixel, legend))));
    return { label: s.label, legend, distances, ok: distances.every((d) => d <= tolerance) };
  });
}
