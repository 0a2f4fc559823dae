import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { packageRoot } from '../native/io/package-root.ts';

const viewer = (name: string) => join(packageRoot(), 'server', 'page', name);
const uplot = (name: string) => join(dirname(createRequire(import.meta.url).resolve('uplot/package.json')), 'dist', name);

/** The page's ES modules (server/page/*.js): viewer.js imports the rest. */
const PAGE_MODULES = ['viewer.js', 'dom.js', 'colors.js', 'match-view.js', 'match-list.js', 'curves.js', 'tournament.js', 'world-scene.js'];

/** Every URL the server answers besides /ws: the page, its modules and style, and uPlot from node_modules (no CDN). */
export const ASSETS: Readonly<Record<string, { readonly file: string; readonly type: string }>> = {
  '/': { file: viewer('index.html'), type: 'text/html; charset=utf-8' },
  ...Object.fromEntries(PAGE_MODULES.map((name) => [`/${name}`, { file: viewer(name), type: 'text/javascript; charset=utf-8' }])),
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
