import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const viewer = (name: string) => fileURLToPath(new URL(`./page/${name}`, import.meta.url));
const uplot = (name: string) => fileURLToPath(new URL(`../node_modules/uplot/dist/${name}`, import.meta.url));

/** Every URL the server answers besides /ws: the page, its module and style, and uPlot from node_modules (no CDN). */
export const ASSETS: Readonly<Record<string, { readonly file: string; readonly type: string }>> = {
  '/': { file: viewer('index.html'), type: 'text/html; charset=utf-8' },
  '/viewer.js': { file: viewer('viewer.js'), type: 'text/javascript; charset=utf-8' },
  '/viewer.css': { file: viewer('viewer.css'), type: 'text/css; charset=utf-8' },
  '/vendor/uplot.esm.js': { file: uplot('uPlot.esm.js'), type: 'text/javascript; charset=utf-8' },
  '/vendor/uplot.min.css': { file: uplot('uPlot.min.css'), type: 'text/css; charset=utf-8' },
};

/** Reads each asset once; the page is a few tens of kilobytes. */
export class StaticAssets {
  private readonly cache = new Map<string, Buffer>();

  async get(path: string): Promise<{ body: Buffer; type: string } | undefined> {
    const asset = ASSETS[path];
    if (!asset) return undefined;
    let body = this.cache.get(path);
    if (!body) {
      body = await readFile(asset.file);
      this.cache.set(path, body);
    }
    return { body, type: asset.type };
  }
}
