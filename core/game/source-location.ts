/**
 * Where user code is, read from stack traces (core does no I/O; a stack is a string): the frame of the file that
 * defined a game, and the frame of user code an error was thrown from, as `path:line`.
 */

/** ludus's own code: its layer folders beside core/ (in a checkout, or dist/ in the package). */
const OWN_ROOT = decodeURIComponent(new URL('../../', import.meta.url).pathname);
const OWN_FOLDERS = ['core', 'native', 'plugins', 'games', 'engine', 'lab', 'server', 'composition', 'cli', 'node_modules'].map((folder) => `${OWN_ROOT}${folder}/`);
const FRAME = /\(?(?:file:\/\/)?(\/[^\s()]+?):(\d+):\d+\)?\s*$/;

export interface SourceLocation {
  readonly file: string;
  readonly line: number;
}

/** The frames of a stack that name a file, in order. */
function frames(stack: string | undefined): SourceLocation[] {
  return (stack ?? '')
    .split('\n')
    .filter((line) => line.trimStart().startsWith('at '))
    .flatMap((line) => {
      const match = FRAME.exec(line);
      return match ? [{ file: decodeURIComponent(match[1]), line: Number(match[2]) }] : [];
    });
}

const isOwn = (location: SourceLocation) => OWN_FOLDERS.some((folder) => location.file.startsWith(folder)) || location.file.includes('/node_modules/');

/** The first frame of `error` in user code (not ludus's, not a dependency's); undefined when there is none. */
export function userFrame(error: unknown): SourceLocation | undefined {
  return frames(error instanceof Error ? error.stack : undefined).find((location) => !isOwn(location));
}

/** The caller of the function that called this one, skipping frames of `skipFile` (the module asking). */
export function callerOutside(skipFile: string): SourceLocation | undefined {
  const skip = decodeURIComponent(new URL(skipFile).pathname);
  return frames(new Error().stack).find((location) => location.file !== skip && !location.file.endsWith('/core/game/source-location.ts') && !location.file.endsWith('/core/game/source-location.js'));
}

export const formatLocation = (location: SourceLocation): string => `${location.file}:${location.line}`;
