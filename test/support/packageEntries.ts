// The package's entries as package.json "exports" lists them (the one list): each import
// specifier a user writes ('gepa-actors', 'gepa-actors/models', ...) and the source module here
// that its built file comes from (./dist/src/X.js <- src/X.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');

/** Import specifier -> absolute path of its source module, root entry first. */
export function packageEntrySources(): Record<string, string> {
  const { exports } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, { import: string }> };
  return Object.fromEntries(
    Object.entries(exports).map(([sub, target]) => [
      sub === '.' ? 'gepa-actors' : `gepa-actors/${sub.slice(2)}`,
      join(ROOT, target.import.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts')),
    ]),
  );
}
