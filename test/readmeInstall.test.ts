// The README's install section tells a newcomer what is true: the Node version package.json
// requires, that the package is installed from the repository while it is unpublished, and
// which setup scripts the tests need (every .ci/setup-*.sh is named, so a new one cannot be
// added without telling the reader).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const install = readme.slice(readme.indexOf('## Install\n'), readme.indexOf('### Optional integrations'));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string }; version: string; name: string };

describe('README: Install', () => {
  it('names the Node version package.json requires', () => {
    const major = /^>=(\d+)$/.exec(pkg.engines.node)?.[1];
    expect(major).toBeDefined();
    expect(install).toContain(`Node.js ${major} or later`);
  });

  it('installs from a clone, and names the packed tarball as npm pack writes it', () => {
    expect(install).toContain('not on the npm registry yet');
    expect(install).toContain('npm ci ');
    expect(install).toContain(`${pkg.name}-${pkg.version}.tgz`);
  });

  it('names every CI setup script the tests depend on', () => {
    const setups = readdirSync(join(ROOT, '.ci')).filter((name) => /^setup-.*\.sh$/.test(name));
    expect(setups.length).toBeGreaterThan(0);
    for (const setup of setups) expect(install).toContain(setup);
    expect(install).toContain('bash .ci/run');
  });
});
