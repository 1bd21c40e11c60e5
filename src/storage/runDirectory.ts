// A run directory on disk: config.json (which run this is), log.jsonl (what it paid for),
// state.json (where it stands), LOCK (which process runs it) and STOP (an operator's request).
// Reading a directory never writes to it; a RunSession, which writes, is opened only once the
// run is known to be startable, so a refused config leaves no trace.
// Room storage/: imported by run/, report/, the machines, the command and the entries.
import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from './atomicFile.js';
import { cacheResumedFrom, diffRunConfigs, recordBudgets, runConfigRecordSchema, scheduleResumedFrom, settingsResumedFrom, type RunConfigRecord } from './runConfigRecord.js';
import { loggedBudgets, resumeBudgets, type ResumedBudgets } from './resumeBudgets.js';
import { RunDirectoryError } from './runDirectoryError.js';
import { LOCK_FILE, RunLock } from './runLock.js';
import { readRunLog, RunLogWriter, type RunLogContents, type RunLogRecord } from './runLog.js';
import { ConfigError, formatZodError } from '../errors/configError.js';
import type { RunSnapshot } from './runSnapshot.js';
import { STOP_FILE } from './stopRequests.js';
import type { OptimizeConfig } from '../config/optimizeConfig.js';
import type { OptimizeResult } from '../gepa/core/optimizeResult.js';
import type { RunSettings } from '../config/runSettings.js';
import { errorMessage } from '../errors/errorMessage.js';

/** The names of the files a run directory holds (docs/durable-runs.md). */
export const RUN_FILES = {
  /** The run's settings and fingerprints, compared on resume. */
  config: 'config.json',
  /** The append-only record of paid work and decisions. */
  log: 'log.jsonl',
  /** Where the run stands, for people and reports. */
  state: 'state.json',
  /** Held by the process running the directory. */
  lock: LOCK_FILE,
  /** Created to ask the run to stop gracefully. */
  stop: STOP_FILE,
} as const;

export interface ExistingRun {
  dir: string;
  /** No config.json yet: a new run. */
  isNew: boolean;
  log: RunLogContents;
  /** The result the log ends with, when the run is over (see isResumableStop). */
  finishedResult?: OptimizeResult;
  /** Pool additions already logged: a resumed run does not log them twice. */
  loggedCandidates: number;
  /** An existing run's budgets on this resume (raised ones logged when the session opens). */
  budgets?: ResumedBudgets;
  /** Models that never answered, named anew on this resume (config.json is rewritten when the session opens). */
  corrected?: string[];
}

/** Logged answers a resumed run would replay: metric calls that did not fail, reflections, proposals. */
function answeredWork(records: readonly RunLogRecord[]): number {
  return records.filter((r) => (r.t === 'eval' && r.evaluation.failure === undefined) || r.t === 'reflect' || r.t === 'propose').length;
}

/**
 * A result that an operator or a failure cut short (STOP file, signal, abort, an executor
 * error, a systemic failure: 'error') does not end the run: resuming continues it, replaying
 * everything already paid for (failed calls are tried again).
 */
export function isResumableStop(stopReason: string): boolean {
  // 'error: <message>' is how earlier versions stopped on a failed seed request or failing hooks.
  return stopReason === 'stopped' || stopReason === 'aborted' || stopReason === 'error' || stopReason.startsWith('error:');
}

function readStoredConfig(path: string): RunConfigRecord {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new RunDirectoryError(`${path}: not valid JSON (${errorMessage(error)})`);
  }
  const parsed = runConfigRecordSchema.safeParse(value);
  if (!parsed.success) throw new RunDirectoryError(`${path}: not a run config: ${formatZodError(parsed.error)}`);
  return parsed.data as RunConfigRecord;
}

/**
 * The settings a run in `dir` goes on with: those whose default changed since and that `config`
 * leaves unset are taken from its config.json (settingsResumedFrom, scheduleResumedFrom), and so is
 * the evaluation cache (cacheResumedFrom: its mode and folder). A directory without one, or
 * with one that cannot be read, changes nothing (readRunDirectory then reports it).
 */
export function resumedSettings(dir: string, config: OptimizeConfig<unknown>, settings: RunSettings): RunSettings {
  const configPath = join(dir, RUN_FILES.config);
  if (!existsSync(configPath)) return settings;
  let stored: RunConfigRecord;
  try {
    stored = readStoredConfig(configPath);
  } catch {
    return settings;
  }
  return cacheResumedFrom(stored, config, scheduleResumedFrom(stored, config, settingsResumedFrom(stored, config, settings)));
}

/**
 * What `dir` holds for a run whose config is `record`. Throws ConfigError when it holds a run
 * with a different config, RunDirectoryError when its files are damaged. Writes nothing.
 */
export function readRunDirectory(dir: string, record: RunConfigRecord): ExistingRun {
  const fresh: ExistingRun = { dir, isNew: true, log: { records: [], validBytes: 0 }, loggedCandidates: 0 };
  if (!existsSync(dir)) return fresh;
  if (!statSync(dir).isDirectory()) throw new RunDirectoryError(`runDir ${dir} exists and is not a directory`);
  const configPath = join(dir, RUN_FILES.config);
  const logPath = join(dir, RUN_FILES.log);
  if (!existsSync(configPath)) {
    if (existsSync(logPath)) throw new RunDirectoryError(`runDir ${dir} has a ${RUN_FILES.log} but no ${RUN_FILES.config}: it was not made by gepa-actors, or was damaged`);
    return fresh;
  }
  const stored = readStoredConfig(configPath);
  const log = readRunLog(logPath, logPath);
  const differences = diffRunConfigs(stored, record);
  const answered = answeredWork(log.records);
  // A model that never answered (a misspelt name, a 404) may be corrected: no logged answer of
  // it would be replayed under the new one. config.json takes the new names when the run opens.
  const corrected = differences.length > 0 && answered === 0 && differences.every((d) => d.identity);
  if (differences.length > 0 && !corrected) {
    const modelsChanged = differences.some((d) => d.identity);
    const why = modelsChanged && answered > 0
      ? ` (its log holds ${answered} answered call${answered === 1 ? '' : 's'} of the recorded models, which cannot be mixed with another model's: to change a model, start a new runDir)`
      : '';
    throw new ConfigError(
      `runDir ${dir} holds a run with a different config (resume with the same config, or use a new runDir)${why}: ${differences.map((d) => d.text).join('; ')}`,
    );
  }
  const original = recordBudgets(stored);
  const budgets = resumeBudgets(original, loggedBudgets(original, log.records), recordBudgets(record));
  const last = log.records.at(-1);
  // A raised budget reopens a finished run: it goes on from where it stopped.
  const finishedResult = last?.t === 'result' && !isResumableStop(last.result.stopReason) && !budgets.raised ? last.result : undefined;
  const loggedCandidates = log.records.reduce((n, r) => (r.t === 'candidate' ? Math.max(n, r.index + 1) : n), 0);
  return { dir, isNew: false, log, finishedResult, loggedCandidates, budgets, ...(corrected ? { corrected: differences.map((d) => d.text) } : {}) };
}

/** The writing side of a run directory, for one process's part of a run. */
export class RunSession {
  private closed = false;

  private constructor(
    readonly dir: string,
    private readonly writer: RunLogWriter,
    private readonly lock: RunLock,
  ) {}

  /** Creates the directory and config.json for a new run, takes the lock, cuts a torn log tail. */
  static open(existing: ExistingRun, record: RunConfigRecord): RunSession {
    const { dir } = existing;
    mkdirSync(dir, { recursive: true });
    const lock = RunLock.take(dir);
    try {
      if (existing.isNew || existing.corrected) writeFileAtomic(join(dir, RUN_FILES.config), `${JSON.stringify(record, null, 2)}\n`);
      // The writer cuts a torn tail first, before an append can glue a record to it.
      const writer = new RunLogWriter(join(dir, RUN_FILES.log), existing.log.validBytes);
      // Before any work under it: a later resume must know the budget this work was paid under.
      if (existing.budgets?.raised) writer.append(existing.budgets.raised);
      return new RunSession(dir, writer, lock);
    } catch (error) {
      lock.release();
      throw error;
    }
  }

  append(record: RunLogRecord): void {
    // A call that settles after the run ended (it was aborted) has nothing left to record.
    if (!this.closed) this.writer.append(record);
  }

  /** At quiet points: the log reaches the disk, then state.json is replaced atomically. */
  checkpoint(snapshot: RunSnapshot): void {
    if (this.closed) return;
    this.writer.sync();
    writeFileAtomic(join(this.dir, RUN_FILES.state), `${JSON.stringify(snapshot, null, 2)}\n`);
  }

  /** Removes a STOP file once it has been honoured, so that resuming continues the run. */
  consumeStopFile(): void {
    rmSync(join(this.dir, RUN_FILES.stop), { force: true });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.writer.close();
    this.lock.release();
  }
}
