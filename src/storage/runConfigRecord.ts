// config.json of a run directory: the run's serializable settings (everything but functions,
// signals and the clock) with defaults resolved, and fingerprints of the seed candidate and the
// datasets, and the user's identity of the function-valued parts (runIdentity: models, adapter).
// A resumed run must match it field by field: a different config would replay work that belongs
// to another run, and mix its scores with the new ones.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { canonicalJson } from '../canonicalJson.js';
import { ConfigError } from '../config/configError.js';
import type { RunSettings } from '../config/runSettings.js';
import type { OptimizeConfig, RebaseWait } from '../types.js';

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

/** How a function reflection model without a name is recorded: such a run cannot be resumed. */
export const UNNAMED_FUNCTION = 'function';

/** The identity fields (runIdentity without reflectionLm), checked to be JSON. */
function identityFields(runIdentity: OptimizeConfig<unknown>['runIdentity']): Record<string, unknown> | undefined {
  if (runIdentity === undefined) return undefined;
  const { reflectionLm, ...fields } = runIdentity;
  if (reflectionLm !== undefined && (typeof reflectionLm !== 'string' || reflectionLm === '')) {
    throw new ConfigError('invalid optimize config: runIdentity.reflectionLm: must be a non-empty string naming the reflection model');
  }
  try {
    canonicalJson(fields);
  } catch {
    throw new ConfigError('invalid optimize config: runIdentity: must be plain JSON (strings, numbers, booleans, arrays, objects)');
  }
  return Object.keys(fields).length > 0 ? fields : undefined;
}

export function runConfigRecord<Example>(config: OptimizeConfig<Example>, settings: RunSettings): RunConfigRecord {
  // failFast and maxConsecutiveFailures decide when a failing run stops, never what it computes:
  // not compared, so a run stopped by a failure can be resumed with other values.
  const { seedCandidate: _seed, seedHash, componentNames: _names, workers, slotPolicy, minibatchSize, maxMerges, failFast: _ff, maxConsecutiveFailures: _mcf, ...rest } = settings;
  const identity = identityFields(config.runIdentity);
  const compared = {
    ...rest,
    reflectionMinibatchSize: minibatchSize,
    merge: maxMerges > 0 ? { maxMerges } : undefined,
    // A function cannot be compared; a named model can.
    reflectionLm: typeof config.reflectionLm === 'string' ? config.reflectionLm : (config.runIdentity?.reflectionLm ?? UNNAMED_FUNCTION),
    identity,
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

/** The compared fields: the settings, with the identity's fields named as themselves (runIdentity.x when x is a setting too). */
function comparedFields(record: RunConfigRecord): Record<string, unknown> {
  const { identity, ...settings } = record.settings;
  const fields: Record<string, unknown> = { ...settings };
  for (const [key, value] of Object.entries((identity ?? {}) as Record<string, unknown>)) fields[key in settings ? `runIdentity.${key}` : key] = value;
  return fields;
}

/**
 * Settings added after run directories were first written, each with the value that runs written
 * before it behaved as: a stored record without the field is the same run as one with that value.
 */
const SETTINGS_ADDED_LATER: Readonly<Record<string, unknown>> = { stepMinibatches: 'fresh' };

/** Fields added to the async schedule later, with the value runs written before them behaved as. */
const ASYNC_SCHEDULE_ADDED_LATER: Readonly<Record<string, unknown>> = { rebaseWait: 'none' };

/** A stored schedule with the fields it predates filled in. */
function scheduleAsWritten(schedule: unknown): unknown {
  if (typeof schedule !== 'object' || schedule === null || (schedule as { kind?: unknown }).kind !== 'async') return schedule;
  return { ...ASYNC_SCHEDULE_ADDED_LATER, ...schedule };
}

/**
 * Settings whose default changed since run directories were first written, for a run resumed
 * without naming them: it takes the value its directory was written with (or, written before the
 * setting existed, the value runs behaved as then), so it resumes as the run it was. Named
 * explicitly, a setting is compared as any other (and a different value is refused).
 * `schedule.rebaseWait`: 'none' before it existed (async runs then decided a rebase at once).
 */
export function withStoredDefaults(settings: RunSettings, config: OptimizeConfig<unknown>, stored: RunConfigRecord | undefined): RunSettings {
  const { schedule } = settings;
  if (stored === undefined || schedule.kind !== 'async' || (config.schedule?.kind === 'async' && config.schedule.rebaseWait !== undefined)) return settings;
  const storedSchedule = scheduleAsWritten(stored.settings.schedule) as { kind?: string; rebaseWait: RebaseWait } | undefined;
  if (storedSchedule?.kind !== 'async') return settings;
  const { rebaseWait } = storedSchedule;
  return rebaseWait === schedule.rebaseWait ? settings : { ...settings, schedule: { ...schedule, rebaseWait } };
}

/** One line per differing field, naming it, with the stored and the new value. Empty = same run. */
export function diffRunConfigs(stored: RunConfigRecord, current: RunConfigRecord): string[] {
  const differences: string[] = [];
  if (stored.settings.reflectionLm === UNNAMED_FUNCTION) {
    differences.push(
      'reflectionLm: a function without a name in the run directory, which cannot be checked to be the same model; ' +
        'name it with runIdentity.reflectionLm from the start (and resume with the same name)',
    );
  }
  const [before, now] = [comparedFields(stored), comparedFields(current)];
  if ('schedule' in before) before.schedule = scheduleAsWritten(before.schedule);
  const keys = [...new Set([...Object.keys(before), ...Object.keys(now)])].sort();
  for (const key of keys) {
    const [a, b] = [key in before ? before[key] : SETTINGS_ADDED_LATER[key], now[key]];
    if (key === 'reflectionLm' && a === UNNAMED_FUNCTION) continue;
    if (canonicalJson(a) !== canonicalJson(b)) differences.push(`${key}: ${show(a)} in the run directory, ${show(b)} now`);
  }
  if (stored.fingerprints.seedCandidate !== current.fingerprints.seedCandidate) differences.push('seedCandidate: a different seed candidate');
  for (const name of ['trainset', 'valset'] as const) {
    const difference = datasetDifference(name, stored.fingerprints[name], current.fingerprints[name]);
    if (difference) differences.push(difference);
  }
  return differences;
}
