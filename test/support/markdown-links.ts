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

/** The anchors of a Markdown text's headings, as GitHub makes them (lower case, punctuation dropped, spaces to dashes, repeats numbered). */
export function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const content of text.split('\n')) {
    if (/^\s*```/.test(content)) fenced = !fenced;
    const heading = fenced ? null : /^#+\s+(.*)$/.exec(content);
    if (!heading) continue;
    const slug = heading[1]!.trim().toLowerCase().replace(/[^\p{L}\p{N}_\- ]/gu, '').replaceAll(' ', '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** Every relative link of the given Markdown files whose file is missing, or whose `#anchor` no heading of a Markdown file makes. */
export function brokenLinks(files: string[], root: string): BrokenLink[] {
  const broken: BrokenLink[] = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const { line, target } of relativeLinks(text)) {
      const [pathPart, anchor] = target.split('#');
      const path = resolve(dirname(file), decodeURIComponent(pathPart!));
      const ok = existsSync(path) && (anchor === undefined || !path.endsWith('.md') || headingAnchors(readFileSync(path, 'utf8')).has(decodeURIComponent(anchor)));
      if (!ok) broken.push({ file: relative(root, file), line, target });
    }
    for (const { line, target } of sameFileAnchors(text)) {
      if (!headingAnchors(text).has(target.slice(1))) broken.push({ file: relative(root, file), line, target });
    }
  }
  return broken;
}

/** `[text](#anchor)` links of a Markdown text, fenced code skipped. */
function sameFileAnchors(text: string): { line: number; target: string }[] {
  const links: { line: number; target: string }[] = [];
  let fenced = false;
  text.split('\n').forEach((content, index) => {
    if (/^\s*```/.test(content)) fenced = !fenced;
    if (fenced) return;
    for (const match of content.matchAll(LINK)) if (match[1]!.startsWith('#')) links.push({ line: index + 1, target: match[1]! });
  });
  return links;
}

/** Markdown files under a folder, recursively. */
export function markdownFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return markdownFiles(path);
    return name.endsWith('.md') ? [path] : [];
  });
}
