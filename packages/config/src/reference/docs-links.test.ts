import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Every link between the repository's Markdown pages resolves: the file exists and, for `#anchor`,
 * the page has that heading (as GitHub spells anchors). Links to other sites are not followed
 * (`npm test` needs no network).
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return markdownFiles(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

const pages = [
  join(root, 'README.md'),
  join(root, 'ARCHITECTURE.md'),
  join(root, 'bench/README.md'),
  ...markdownFiles(join(root, 'docs')),
];

/** The text outside code fences and inline code, where a `[text](target)` is a link. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as `-`; repeats get `-1`, `-2`. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const [, text] of prose(markdown).matchAll(/^#{1,6} (.+)$/gm)) {
    const base = text!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count ? `${base}-${count}` : base);
  }
  return result;
}

function brokenLinks(page: string): string[] {
  const text = readFileSync(page, 'utf8');
  const broken: string[] = [];
  for (const [, target] of prose(text).matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z]+:/i.test(target!)) continue;
    const [path, anchor] = target!.split('#') as [string, string | undefined];
    const file = path ? resolve(dirname(page), path) : page;
    const where = `${relative(root, page)} → ${target}`;
    if (!existsSync(file)) broken.push(`${where}: no such file`);
    else if (anchor !== undefined && (!file.endsWith('.md') || !anchors(readFileSync(file, 'utf8')).has(anchor)))
      broken.push(`${where}: no such heading`);
  }
  return broken;
}

describe('links between the Markdown pages', () => {
  it('finds the README, ARCHITECTURE.md and every page of docs/', () => {
    expect(pages.map((page) => relative(root, page))).toEqual(
      expect.arrayContaining(['README.md', 'docs/configuration.md', 'docs/channels/slack.md']),
    );
  });

  it('spells anchors as GitHub does', () => {
    expect([
      ...anchors('# Every core (API_PROCESSES)\n## Admin API: hook jobs and replay\n## Live replies\n### Live replies\n'),
    ]).toEqual(['every-core-api_processes', 'admin-api-hook-jobs-and-replay', 'live-replies', 'live-replies-1']);
  });

  it.each(pages.map((page) => [relative(root, page), page]))('%s: every link resolves', (_name, page) => {
    expect(brokenLinks(page)).toEqual([]);
  });
});
