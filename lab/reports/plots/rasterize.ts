import { Resvg } from '@resvg/resvg-js';

/** Renders an SVG document to PNG bytes at `width` pixels wide (height follows the aspect ratio), with the system's fonts. */
export function svgToPng(svg: string, width: number): Uint8Array {
  if (!(Number.isInteger(width) && width > 0)) throw new RangeError(`PNG width must be a positive integer, got ${width}`);
  const image = new Resvg(svg, { fitTo: { mode: 'width', value: width }, background: '#ffffff', font: { loadSystemFonts: true }, logLevel: 'off' }).render();
  return new Uint8Array(image.asPng());
}
