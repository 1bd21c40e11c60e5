// config.json of a run directory: the run's serializable settings (everything but functions,
// signals and the clock) with defaults resolved, and fingerprints of the seed candidate and the
// datasets, and the user's identity of the function-valued parts (runIdentity: models, adapter).
// A resumed run must match it field by field: a different config would replay work that belongs
// to another run, and mix its scores with the new ones.
import { z } from 'zod';
import { canonicalJson } from '../identity/canonicalJson.js';
import { datasetFingerprint, datasetFingerprints, type DatasetFingerprint, type DatasetFingerprints } from '../identity/contentHash.js';
import { ConfigError } from '../errors/configError.js';
import type { RunSettings } from '../config/runSettings.js';
import { REBASE_WAITS, STEP_MINIBATCHES, TIE_ORDERS } from '../settingValues.js';
import { stopperName } from '../gepa/strategies/stoppers.js';
import type { OptimizeConfig } from '../config/optimizeConfig.js';
import type { RebaseWait } from '../settingValues.js';
import { RESUMABLE_BUDGETS, type RunBudgets } from './resumeBudgets.js';

/** config.json of a run directory: what a resumed run must match. */
export interface RunConfigRecord {
  /** The file's format version. */
  version: 1;
  /** Compared on resume. Names are the config's own (reflectionMinibatchSize, merge.maxMerges, ...). */
  settings: Record<string, unknown>;
  /** What the seed candidate and the datasets were, compared on resume. */
  fingerprints: {
    /** candidateHash of the seed. */
    seedCandidate: string;
    /** The trainset's size and content hash. */
    trainset: DatasetFingerprint;
    /** The valset's size and content hash. */
    valset: DatasetFingerprint;
  };
  /**
   * Recorded, not compared: they change how fast a batched run goes, never what it computes; and
   * the names of the user's stoppers (functions cannot be recorded: a resume passes them again).
   */
  operational: {
    /** The run's worker slots. */
    workers: number;
    /** Its slot policy. */
    slotPolicy: string;
    /** Its executor's kind. */
    executor: string;
    /** The names of the user's stoppers (stopWhen), when it has any. */
    stopWhen?: string[];
    /**
     * The 'disk' evaluation cache's folder. Recorded, not compared: the cache mode is a setting
     * (it changes what a run pays for); where the folder is does not.
     */
    cacheDir?: string;
  };
}

const fingerprintSchema = z.object({ size: z.number().int().nonnegative(), sha256: z.string().optional() });

export const runConfigRecordSchema = z.object({
  version: z.literal(1),
  settings: z.record(z.string(), z.unknown()),
  fingerprints: z.object({ seedCandidate: z.string(), trainset: fingerprintSchema, valset: fingerprintSchema }),
  operational: z.object({ workers: z.number(), slotPolicy: z.string(), executor: z.string(), stopWhen: z.array(z.string()).optional(), cacheDir: z.string().optional() }),
});


/** How a function reflection model without a name is recorded: such a run cannot be resumed. */
export const UNNAMED_FUNCTION = 'function';

/** The name a model function gives itself (`modelIdentity`: AI SDK models say `ai-sdk:<provider>/<model id>`). */
function modelIdentityOf(model: unknown): string | undefined {
  const identity = (model as { modelIdentity?: unknown } | null)?.modelIdentity;
  return typeof identity === 'string' && identity !== '' ? identity : undefined;
}

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

/** `datasets`: the fingerprints when the caller already has them (they are hashed otherwise). */
export function runConfigRecord<Example>(config: OptimizeConfig<Example>, settings: RunSettings, datasets: DatasetFingerprints = datasetFingerprints(config.trainset, config.valset)): RunConfigRecord {
  // failFast and maxConsecutiveFailures decide when a failing run stops, never what it computes:
  // not compared, so a run stopped by a failure can be resumed with other values.
  // The stoppers are functions: only their names are recorded (operational), never compared.
  const { seedCandidate: _seed, seedHash, componentNames: _names, workers, slotPolicy, minibatchSize, maxMerges, failFast: _ff, maxConsecutiveFailures: _mcf, stopWhen, cacheDir, holdoutSize: _h, ...rest } = settings;
  const identity = identityFields(config.runIdentity);
  const compared = {
    ...rest,
    reflectionMinibatchSize: minibatchSize,
    merge: maxMerges > 0 ? { maxMerges } : undefined,
    // A function cannot be compared; a named model can.
    reflectionLm: typeof config.reflectionLm === 'string' ? config.reflectionLm : (config.runIdentity?.reflectionLm ?? modelIdentityOf(config.reflectionLm) ?? UNNAMED_FUNCTION),
    identity,
    // Its scores are logged by example: another holdout set would be served them.
    ...(config.holdout !== undefined ? { holdout: datasetFingerprint(config.holdout) } : {}),
  };
  return {
    version: 1,
    // Through JSON, so that unset fields are absent, as they will be when read back.
    settings: JSON.parse(JSON.stringify(compared)) as Record<string, unknown>,
    fingerprints: {
      seedCandidate: seedHash,
      trainset: datasets.trainset,
      valset: datasets.valset,
    },
    operational: {
      workers,
      slotPolicy,
      executor: config.executor?.kind ?? 'local',
      ...(stopWhen.length > 0 ? { stopWhen: stopWhen.map(stopperName) } : {}),
      ...(cacheDir !== undefined ? { cacheDir } : {}),
    },
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

/** The names comparedFields gives a record's identity fields. */
function identityNames(record: RunConfigRecord): string[] {
  const { identity, ...settings } = record.settings;
  return Object.keys((identity ?? {}) as Record<string, unknown>).map((key) => (key in settings ? `runIdentity.${key}` : key));
}

/** The compared fields: the settings, with the identity's fields named as themselves (runIdentity.x when x is a setting too). */
function comparedFields(record: RunConfigRecord): Record<string, unknown> {
  const { identity, evaluationCacheOff, ...settings } = record.settings;
  const fields: Record<string, unknown> = { ...settings };
  // optimizeAnything runs written before cacheEvaluation was a setting recorded `false` as this.
  if (evaluationCacheOff === true && !('cacheEvaluation' in settings)) fields.cacheEvaluation = false;
  for (const [key, value] of Object.entries((identity ?? {}) as Record<string, unknown>)) fields[key in settings ? `runIdentity.${key}` : key] = value;
  return fields;
}

/**
 * Settings added after run directories were first written, each with the value that runs written
 * before it behaved as: a stored record without the field is the same run as one with that value.
 */
const SETTINGS_ADDED_LATER: Readonly<Record<string, unknown>> = { stepMinibatches: 'fresh', spendLastCalls: false, cacheEvaluation: 'memory' };

/**
 * Settings whose default changed after run directories were written with an earlier one. A
 * resumed run that leaves one unset continues with the value its directory recorded (or, in a
 * record older than the setting, the value it behaved as), so it goes on computing what it
 * started with; a value given explicitly is compared like any other, and refused if it differs.
 */
const DEFAULTS_THAT_CHANGED = ['stepMinibatches', 'tieOrder', 'spendLastCalls'] as const;
const VALID: Readonly<Record<(typeof DEFAULTS_THAT_CHANGED)[number], readonly unknown[]>> = { stepMinibatches: STEP_MINIBATCHES, tieOrder: TIE_ORDERS, spendLastCalls: [false, true] };

/** `settings` with each setting the config leaves unset and whose default changed taken from the stored record. */
export function settingsResumedFrom<S extends Record<(typeof DEFAULTS_THAT_CHANGED)[number], unknown>>(stored: RunConfigRecord, config: Partial<Record<(typeof DEFAULTS_THAT_CHANGED)[number], unknown>>, settings: S): S {
  let resumed = settings;
  for (const key of DEFAULTS_THAT_CHANGED) {
    if (config[key] !== undefined) continue;
    const recorded = key in stored.settings ? stored.settings[key] : SETTINGS_ADDED_LATER[key];
    // A value this version does not know is left to the comparison, which names it.
    if (VALID[key].includes(recorded) && recorded !== settings[key]) resumed = { ...resumed, [key]: recorded };
  }
  return resumed;
}

const CACHE_MODES: readonly unknown[] = [false, 'memory', 'disk'];

/**
 * The evaluation cache a resumed run goes on with: a config that leaves cacheEvaluation unset
 * continues with the recorded mode (a 'disk' cache with its recorded folder unless the config
 * names another), so a resume never changes the mode silently; a mode given is compared as any
 * setting (a different one is refused, naming it).
 */
export function cacheResumedFrom<S extends Pick<RunSettings, 'cacheEvaluation' | 'cacheDir'>>(stored: RunConfigRecord, config: Pick<OptimizeConfig<unknown>, 'cacheEvaluation' | 'cacheDir'>, settings: S): S {
  if (config.cacheEvaluation !== undefined) return settings;
  const recorded = comparedFields(stored).cacheEvaluation ?? SETTINGS_ADDED_LATER.cacheEvaluation;
  // A value this version does not know is left to the comparison, which names it.
  if (!CACHE_MODES.includes(recorded) || recorded === settings.cacheEvaluation) return settings;
  const cacheDir = recorded === 'disk' ? (config.cacheDir ?? stored.operational.cacheDir) : undefined;
  const { cacheDir: _given, ...rest } = settings;
  return { ...rest, cacheEvaluation: recorded as RunSettings['cacheEvaluation'], ...(cacheDir !== undefined ? { cacheDir } : {}) } as S;
}

/** Fields added to the async schedule later, with the value runs written before them behaved as. */
const ASYNC_SCHEDULE_ADDED_LATER: Readonly<Record<string, unknown>> = { rebaseWait: 'none', heldSlot: 'keep', speculate: 'none' };

/** A stored schedule with the fields it predates filled in. */
function scheduleAsWritten(schedule: unknown): unknown {
  if (typeof schedule !== 'object' || schedule === null || (schedule as { kind?: unknown }).kind !== 'async') return schedule;
  return { ...ASYNC_SCHEDULE_ADDED_LATER, ...schedule };
}

/**
 * The async schedule's settings whose default changed, resumed as settingsResumedFrom resumes
 * top-level ones: `schedule.rebaseWait` ('none' before it existed: async runs then decided a
 * rebase at once), unless the config names it; and schedule 'auto''s `combinesFailures`, which a
 * directory written before auto reflected with its 'combined' lacks: that run goes on without it.
 */
export function scheduleResumedFrom(stored: RunConfigRecord, config: OptimizeConfig<unknown>, settings: RunSettings): RunSettings {
  const { schedule } = settings;
  const storedSchedule = scheduleAsWritten(stored.settings.schedule) as { kind?: string; rebaseWait: RebaseWait; auto?: unknown; combinesFailures?: unknown } | undefined;
  if (schedule.kind !== 'async' || storedSchedule?.kind !== 'async') return settings;
  let resumed = schedule;
  const { rebaseWait } = storedSchedule;
  const rebaseWaitNamed = config.schedule?.kind === 'async' && config.schedule.rebaseWait !== undefined;
  // A value this version does not know is left to the comparison, which names it.
  if (!rebaseWaitNamed && (REBASE_WAITS as readonly unknown[]).includes(rebaseWait) && rebaseWait !== schedule.rebaseWait) resumed = { ...resumed, rebaseWait };
  if (resumed.combinesFailures === true && storedSchedule.auto === true && storedSchedule.combinesFailures === undefined) {
    const { combinesFailures: _later, ...without } = resumed;
    resumed = without;
  }
  return resumed === schedule ? settings : { ...settings, schedule: resumed };
}

/** The budgets a record holds (undefined: no limit). */
export function recordBudgets(record: RunConfigRecord): RunBudgets {
  const budgets: RunBudgets = {};
  for (const name of RESUMABLE_BUDGETS) {
    const value = record.settings[name];
    if (typeof value === 'number') budgets[name] = value;
  }
  return budgets;
}

export interface RunConfigDifference {
  /** One line naming the field, with the stored and the new value. */
  text: string;
  /** A name of a function-valued part (reflectionLm, a runIdentity field): a model, an adapter. */
  identity: boolean;
}

/** Every differing field (the budgets aside). Empty = same run. */
export function diffRunConfigs(stored: RunConfigRecord, current: RunConfigRecord): RunConfigDifference[] {
  const differences: RunConfigDifference[] = [];
  if (stored.settings.reflectionLm === UNNAMED_FUNCTION) {
    differences.push({
      text:
        'reflectionLm: a function without a name in the run directory, which cannot be checked to be the same model; ' +
        'name it with runIdentity.reflectionLm from the start (and resume with the same name)',
      identity: false,
    });
  }
  const [before, now] = [comparedFields(stored), comparedFields(current)];
  if ('schedule' in before) before.schedule = scheduleAsWritten(before.schedule);
  const identityKeys = new Set(['reflectionLm', ...identityNames(stored), ...identityNames(current)]);
  // The budgets may be raised on resume: resumeBudgets.ts decides, with the log's raises in view.
  const keys = [...new Set([...Object.keys(before), ...Object.keys(now)])].filter((key) => !(RESUMABLE_BUDGETS as readonly string[]).includes(key)).sort();
  for (const key of keys) {
    const [a, b] = [key in before ? before[key] : SETTINGS_ADDED_LATER[key], now[key]];
    if (key === 'reflectionLm' && a === UNNAMED_FUNCTION) continue;
    if (canonicalJson(a) !== canonicalJson(b)) differences.push({ text: `${key}: ${show(a)} in the run directory, ${show(b)} now`, identity: identityKeys.has(key) });
  }
  if (stored.fingerprints.seedCandidate !== current.fingerprints.seedCandidate) differences.push({ text: 'seedCandidate: a different seed candidate', identity: false });
  for (const name of ['trainset', 'valset'] as const) {
    const difference = datasetDifference(name, stored.fingerprints[name], current.fingerprints[name]);
    if (difference) differences.push({ text: difference, identity: false });
  }
  return differences;
}
