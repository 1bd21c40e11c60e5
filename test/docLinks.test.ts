// Every relative link in README.md and docs/*.md leads somewhere: the file (or folder) exists,
// and an anchor (`guide.md#section`, `#section`) names a heading of the Markdown file it points
// at, as GitHub slugs headings. Links inside code are not links. The guide index, docs/README.md,
// links every guide, so a guide added later is found from it.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { markdownFiles, REPO_ROOT } from './support/markdownFiles.js';

/** The text without fenced blocks and inline code spans (their brackets are not links). */
function proseOf(markdown: string): string {
  return markdown.replace(/^\s*(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\s*\1[^\n]*$/gm, '').replace(/(`+)[\s\S]*?\1/g, '');
}

/** The targets of inline links and images, `[text](target "title")`. */
function linkTargets(markdown: string): string[] {
  return [...proseOf(markdown).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
}

/** GitHub's anchor of each heading: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of markdown.replace(/^\s*(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\s*\1[^\n]*$/gm, '').split('\n')) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const slug = heading[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

const isExternal = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target);

/** What is wrong with one link of `file`, or undefined when it resolves. */
function brokenLink(file: string, target: string): string | undefined {
  const [path = '', anchor] = target.split('#', 2);
  const resolved = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
  if (!existsSync(resolved)) return `${target}: no such file`;
  if (anchor === undefined || anchor === '' || !resolved.endsWith('.md') || statSync(resolved).isDirectory()) return undefined;
  return headingAnchors(readFileSync(resolved, 'utf8')).has(anchor.toLowerCase()) ? undefined : `${target}: no heading with anchor #${anchor}`;
}

describe('links in README.md and docs/', () => {
  const files = markdownFiles();

  it('reads links from the prose, not from code, and slugs headings as GitHub does', () => {
    expect(linkTargets('see [a](a.md), `[b](b.md)`, ![c](c.png "C")\n```md\n[d](d.md)\n```\n[e](https://x.org)')).toEqual(['a.md', 'c.png', 'https://x.org']);
    expect([...headingAnchors('# The AI SDK\n## Options optimize() does not know\n## `stopWhen`: yours\n## Usage\n## Usage\n')]).toEqual([
      'the-ai-sdk',
      'options-optimize-does-not-know',
      'stopwhen-yours',
      'usage',
      'usage-1',
    ]);
  });

  it('every relative link resolves to a file, and every anchor to a heading', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const file of files) {
      for (const target of linkTargets(readFileSync(file, 'utf8'))) {
        if (isExternal(target)) continue;
        checked++;
        const problem = brokenLink(file, target);
        if (problem) broken.push(`${relative(REPO_ROOT, file)}: ${problem}`);
      }
    }
    expect(broken).toEqual([]);
    expect(checked).toBeGreaterThan(50);
  });

  it('the guide index links every guide', () => {
    const index = join(REPO_ROOT, 'docs', 'README.md');
    const linked = new Set(linkTargets(readFileSync(index, 'utf8')).map((target) => target.split('#')[0]));
    const guides = readdirSync(join(REPO_ROOT, 'docs')).filter((name) => name.endsWith('.md') && name !== basename(index));
    expect(guides.length).toBeGreaterThan(10);
    expect(guides.filter((guide) => !linked.has(guide))).toEqual([]);
  });
});
