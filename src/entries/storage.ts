/**
 * `gepa-actors/storage`: durable runs (runDir, docs/durable-runs.md): the run directory's files, its
 * log and records, the journal a run replays, and the stop requests an operator can make.
 *
 * @module gepa-actors/storage
 */
export { RUN_FILES, isResumableStop } from '../storage/runDirectory.js';
export { RunJournal } from '../storage/runJournal.js';
export type { RunBudgets } from '../storage/resumeBudgets.js';
export { readRunLog, parseRunLog, type RunLogRecord, type RunLogContents } from '../storage/runLog.js';
export type { RunSnapshot, SnapshotCandidate } from '../storage/runSnapshot.js';
export type { RunConfigRecord } from '../storage/runConfigRecord.js';
export { installSignalHandlers, watchStopFile, STOP_FILE, type SignalHandlerOptions } from '../storage/stopRequests.js';
export type { ResumeWalk, ScheduleDecision, WorkJournal } from '../gepa/core/workJournal.js';
