// Optional peers: a missing package is named, with the command that installs every package of
// the feature; a package that is there but fails to load keeps its own error.
import { describe, expect, it } from 'vitest';
import { checkInstalled, importIntegration, MissingDependencyError, missingPackages } from '../src/peers/optionalDependency.js';

const FEATURE = { feature: 'the test feature', packages: ['xstate', 'gepa-actors-no-such-package'] };
const INSTALLED = { feature: 'the zod feature', packages: ['zod'] };

describe('optional dependencies', () => {
  it('a missing package is named with the install command for the whole feature', () => {
    expect(missingPackages(FEATURE)).toEqual(['gepa-actors-no-such-package']);
    expect(() => checkInstalled(FEATURE)).toThrow(
      new MissingDependencyError(FEATURE, ['gepa-actors-no-such-package']),
    );
    expect(new MissingDependencyError(FEATURE, ['gepa-actors-no-such-package']).message).toBe(
      'the test feature needs `npm install xstate gepa-actors-no-such-package` (not found: gepa-actors-no-such-package)',
    );
    expect(() => checkInstalled(INSTALLED)).not.toThrow();
  });

  it('a failed import becomes MissingDependencyError only when a package is missing', async () => {
    const failing = () => Promise.reject(new Error('boom'));
    const missing = await importIntegration(FEATURE, failing).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(MissingDependencyError);
    expect((missing as MissingDependencyError).cause).toEqual(new Error('boom'));
    await expect(importIntegration(INSTALLED, failing)).rejects.toThrow('boom');
    const zod = await importIntegration(INSTALLED, () => import('zod'));
    expect(typeof zod.z.object).toBe('function');
  });
});
