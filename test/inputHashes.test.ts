// A run directory's input hashes are computed once per process: what the CLI computed to check the
// directory (prepareRun's `hashes`) is what the run records, and the datasets are not hashed again.
// A dataset whose toJSON counts its calls shows how often it was serialized for hashing.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { datasetFingerprints } from '../src/identity/contentHash.js';
import { prepareRun } from '../src/run/prepareRun.js';
import { candidateHash } from '../src/gepa/core/candidateHash.js';
import { optimize } from '../src/index.js';
import { durableRunConfig } from './support/durableRunTask.js';

const scratch = mkdtempSync(join(tmpdir(), 'gepa-hashes-'));
const fingerprintsIn = (dir: string): unknown => (JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { fingerprints: unknown }).fingerprints;
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The valset as an array that counts how often it is turned into JSON. */
function countingValset(dir: string) {
  const config = durableRunConfig(dir);
  const serialized = { count: 0 };
  const valset = Object.assign([...(config.valset ?? [])], {
    toJSON() {
      serialized.count++;
      return [...valset];
    },
  });
  return { config: { ...config, maxMetricCalls: 120, valset }, serialized };
}

describe('input hashes', () => {
  it('a run given its hashes does not hash its datasets again, and records the same fingerprints', async () => {
    const { config, serialized } = countingValset(join(scratch, 'given'));
    const hashes = { seedCandidate: candidateHash(config.seedCandidate), datasets: datasetFingerprints(config.trainset, config.valset) };
    expect(serialized.count).toBe(1);
    const given = await optimize(prepareRun(config, hashes));
    expect(serialized.count).toBe(1);

    const { config: again, serialized: counted } = countingValset(join(scratch, 'computed'));
    const computed = await optimize(again);
    expect(counted.count).toBe(1);
    expect(computed.bestScore).toBe(given.bestScore);
    expect(fingerprintsIn(join(scratch, 'given'))).toEqual({ seedCandidate: hashes.seedCandidate, ...hashes.datasets });
    expect(fingerprintsIn(join(scratch, 'given'))).toEqual(fingerprintsIn(join(scratch, 'computed')));
  });
});
