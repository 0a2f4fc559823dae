import { readFile } from 'node:fs/promises';
import { LudusError } from '../core/errors.ts';
import { isMissingFileError } from '../native/io/files.ts';

/** A `--config FILE` of JSON overrides; a missing or unparsable file is a coded error naming it. */
export async function readConfigFile(path: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (isMissingFileError(error)) throw new LudusError('FILE_NOT_FOUND', `${path}: config file not found`, { file: path });
    if ((error as NodeJS.ErrnoException).code === 'EISDIR') throw new LudusError('INPUT_INVALID', `${path}: is a directory; --config takes a JSON file`, { file: path });
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new LudusError('CONFIG_INVALID', `${path}: not valid JSON (${(error as Error).message})`, { file: path });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new LudusError('CONFIG_INVALID', `${path}: must hold a JSON object`, { file: path });
  return parsed as Record<string, unknown>;
}
