import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** A relative link in a Markdown file whose target does not exist. */
export interface BrokenLink {
  file: string;
  line: number;
  target: string;
}

const LINK = /\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g;

/** Relative link targets of one Markdown text, with their line numbers (fenced code skipped). */
export function relativeLinks(text: string): { line: number; target: string }[] {
  const links: { line: number; target: string }[] = [];
  let fenced = false;
  text.split('\n').forEach((content, index) => {
    if (/^\s*```/.test(content)) fenced = !fenced;
    if (fenced) return;
    for (const match of content.matchAll(LINK)) {
      const target = match[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue;
      links.push({ line: index + 1, target });
    }
  });
  return links;
}

/** Every relative link of the given Markdown files whose file (anchor ignored) is missing. */
export function brokenLinks(files: string[], root: string): BrokenLink[] {
  const broken: BrokenLink[] = [];
  for (const file of files) {
    for (const { line, target } of relativeLinks(readFileSync(file, 'utf8'))) {
      const path = decodeURIComponent(target.split('#')[0]!);
      if (!existsSync(resolve(dirname(file), path))) {
        broken.push({ file: relative(root, file), line, target });
      }
    }
  }
  return broken;
}

/** Markdown files under a folder, recursively. */
export function markdownFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return markdownFiles(path);
    return name.endsWith('.md') ? [path] : [];
  });
}
