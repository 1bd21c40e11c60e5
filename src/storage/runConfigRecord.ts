// config.json of a run directory: the run's serializable settings (everything but functions,
// signals and the clock) with defaults resolved, and fingerprints of the seed candidate and the
// datasets. A resumed run must match it field by field: a different config would replay work
// that belongs to another run.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { canonicalJson } from '../canonicalJson.js';
import type { RunSettings } from '../config/runSettings.js';
import type { OptimizeConfig } from '../types.js';

export interface DatasetFingerprint {
  size: number;
  /** SHA-256 of the dataset's canonical JSON; absent when it is not JSON (then only the size counts). */
  sha256?: string;
}

export interface RunConfigRecord {
  version: 1;
  /** Compared on resume. Names are the config's own (reflectionMinibatchSize, merge.maxMerges, ...). */
  settings: Record<string, unknown>;
  fingerprints: { seedCandidate: string; trainset: DatasetFingerprint; valset: DatasetFingerprint };
  /** Recorded, not compared: they change how fast a batched run goes, never what it computes. */
  operational: { workers: number; slotPolicy: string; executor: string };
}

const fingerprintSchema = z.object({ size: z.number().int().nonnegative(), sha256: z.string().optional() });

export const runConfigRecordSchema = z.object({
  version: z.literal(1),
  settings: z.record(z.string(), z.unknown()),
  fingerprints: z.object({ seedCandidate: z.string(), trainset: fingerprintSchema, valset: fingerprintSchema }),
  operational: z.object({ workers: z.number(), slotPolicy: z.string(), executor: z.string() }),
});

export function datasetFingerprint(dataset: readonly unknown[]): DatasetFingerprint {
  try {
    return { size: dataset.length, sha256: createHash('sha256').update(canonicalJson(dataset)).digest('hex') };
  } catch {
    // Cycles or BigInts: the content cannot be fingerprinted, its size still can.
    return { size: dataset.length };
  }
}

export function runConfigRecord<Example>(config: OptimizeConfig<Example>, settings: RunSettings): RunConfigRecord {
  // failFast and maxConsecutiveFailures decide when a failing run stops, never what it computes:
  // not compared, so a run stopped by a failure can be resumed with other values.
  const { seedCandidate: _seed, seedHash, componentNames: _names, workers, slotPolicy, minibatchSize, maxMerges, failFast: _ff, maxConsecutiveFailures: _mcf, ...rest } = settings;
  const compared = {
    ...rest,
    reflectionMinibatchSize: minibatchSize,
    merge: maxMerges > 0 ? { maxMerges } : undefined,
    // A function cannot be compared; a named model can.
    reflectionLm: typeof config.reflectionLm === 'string' ? config.reflectionLm : 'function',
  };
  return {
    version: 1,
    // Through JSON, so that unset fields are absent, as they will be when read back.
    settings: JSON.parse(JSON.stringify(compared)) as Record<string, unknown>,
    fingerprints: {
      seedCandidate: seedHash,
      trainset: datasetFingerprint(config.trainset),
      valset: datasetFingerprint(config.valset ?? config.trainset),
    },
    operational: { workers, slotPolicy, executor: config.executor?.kind ?? 'local' },
  };
}

const show = (value: unknown) => (value === undefined ? 'not set' : JSON.stringify(value));

function datasetDifference(name: string, stored: DatasetFingerprint, current: DatasetFingerprint): string | undefined {
  if (stored.size !== current.size) return `${name}: ${stored.size} examples in the run directory, ${current.size} now`;
  if (stored.sha256 !== undefined && current.sha256 !== undefined && stored.sha256 !== current.sha256) {
    return `${name}: the same number of examples (${current.size}) but different content`;
  }
  return undefined;
}

/** One line per differing field, naming it, with the stored and the new value. Empty = same run. */
export function diffRunConfigs(stored: RunConfigRecord, current: RunConfigRecord): string[] {
  const differences: string[] = [];
  const keys = [...new Set([...Object.keys(stored.settings), ...Object.keys(current.settings)])].sort();
  for (const key of keys) {
    const [a, b] = [stored.settings[key], current.settings[key]];
    if (canonicalJson(a) !== canonicalJson(b)) differences.push(`${key}: ${show(a)} in the run directory, ${show(b)} now`);
  }
  if (stored.fingerprints.seedCandidate !== current.fingerprints.seedCandidate) differences.push('seedCandidate: a different seed candidate');
  for (const name of ['trainset', 'valset'] as const) {
    const difference = datasetDifference(name, stored.fingerprints[name], current.fingerprints[name]);
    if (difference) differences.push(difference);
  }
  return differences;
}
