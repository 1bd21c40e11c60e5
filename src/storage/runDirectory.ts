// A run directory on disk: config.json (which run this is), log.jsonl (what it paid for),
// state.json (where it stands), LOCK (which process runs it) and STOP (an operator's request).
// Reading a directory never writes to it; a RunSession, which writes, is opened only once the
// run is known to be startable, so a refused config leaves no trace.
import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from './atomicFile.js';
import { diffRunConfigs, runConfigRecordSchema, scheduleResumedFrom, settingsResumedFrom, type RunConfigRecord } from './runConfigRecord.js';
import { RunDirectoryError } from './runDirectoryError.js';
import { LOCK_FILE, RunLock } from './runLock.js';
import { readRunLog, RunLogWriter, type RunLogContents, type RunLogRecord } from './runLog.js';
import { ConfigError, formatZodError } from '../config/configError.js';
import type { RunSnapshot } from './runSnapshot.js';
import { STOP_FILE } from './stopRequests.js';
import type { OptimizeConfig, OptimizeResult } from '../types.js';
import type { RunSettings } from '../config/runSettings.js';
import { errorMessage } from '../errorMessage.js';

export const RUN_FILES = { config: 'config.json', log: 'log.jsonl', state: 'state.json', lock: LOCK_FILE, stop: STOP_FILE } as const;

export interface ExistingRun {
  dir: string;
  /** No config.json yet: a new run. */
  isNew: boolean;
  log: RunLogContents;
  /** The result the log ends with, when the run is over (see isResumableStop). */
  finishedResult?: OptimizeResult;
  /** Pool additions already logged: a resumed run does not log them twice. */
  loggedCandidates: number;
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
 * leaves unset are taken from its config.json (settingsResumedFrom, scheduleResumedFrom). A directory without one, or
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
  return scheduleResumedFrom(stored, config, settingsResumedFrom(stored, config, settings));
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
  const differences = diffRunConfigs(readStoredConfig(configPath), record);
  if (differences.length > 0) {
    throw new ConfigError(
      `runDir ${dir} holds a run with a different config (resume with the same config, or use a new runDir): ${differences.join('; ')}`,
    );
  }
  const log = readRunLog(logPath, logPath);
  const last = log.records.at(-1);
  const finishedResult = last?.t === 'result' && !isResumableStop(last.result.stopReason) ? last.result : undefined;
  const loggedCandidates = log.records.reduce((n, r) => (r.t === 'candidate' ? Math.max(n, r.index + 1) : n), 0);
  return { dir, isNew: false, log, finishedResult, loggedCandidates };
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
      if (existing.isNew) writeFileAtomic(join(dir, RUN_FILES.config), `${JSON.stringify(record, null, 2)}\n`);
      // The writer cuts a torn tail first, before an append can glue a record to it.
      return new RunSession(dir, new RunLogWriter(join(dir, RUN_FILES.log), existing.log.validBytes), lock);
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
