// The documentation we write: README.md and every Markdown file under docs/ (found by walking the
// folder, so a guide added later is covered without touching a test), without docs/api, which
// TypeDoc generates. The doc tests (code blocks, links) read the same list.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

export const REPO_ROOT = join(import.meta.dirname, '..', '..');
/** The generated API reference (TypeDoc's output) is not documentation we write. */
const GENERATED = join(REPO_ROOT, 'docs', 'api');

/** README.md first, then docs/**.md in name order, as absolute paths. */
export function markdownFiles(): string[] {
  const docs = join(REPO_ROOT, 'docs');
  const found = readdirSync(docs, { recursive: true, encoding: 'utf8' })
    .map((name) => join(docs, name))
    .filter((path) => path.endsWith('.md') && !path.startsWith(GENERATED + '/'));
  return [join(REPO_ROOT, 'README.md'), ...found.sort()];
}
