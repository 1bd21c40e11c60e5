// activity.jsonl: what only a run's own process knows, for a watcher in another process
// (`gepa-actors watch`): the worker slots (what each ran, from when to when) and each proposal's
// stage (started, its parent, evaluating, reflecting, ended), and the warnings and errors that are
// not metric-call failures (those are in log.jsonl already). Written beside inspect.jsonl by
// `--inspect`, nothing otherwise. Small records: stages, never texts, datasets or replies.
// Times are ms since the run started (its run.started event), as the report's timeline measures them.
import { createJsonLinesFile } from './jsonLinesFile.js';
import type { RunEvent } from '../gepa/core/runEvent.js';
import type { SlotInterval } from '../evaluation/workerSlots.js';

/** The file `--inspect` writes beside inspect.jsonl. */
export const ACTIVITY_FILE = 'activity.jsonl';

/** A proposal's stage or a notice, as activity.jsonl keeps it (a RunEvent without its texts). */
export type ActivityEvent =
  | { type: 'proposal.started'; step: number; task: number; merge?: { parents: number[] } }
  | { type: 'candidate.selected'; parent: number; step: number; task: number }
  | { type: 'evaluation.started'; target: string; step: number; task: number }
  | { type: 'reflection.started'; step: number; task: number }
  | { type: 'proposal.ended'; step: number; task: number; outcome: string }
  | { type: 'warning'; message: string }
  | { type: 'error'; message: string; systemic?: boolean }
  | { type: 'retry.scheduled'; model: string; attempt: number; maxAttempts: number; delayMs: number; reason: string };

/** One line of activity.jsonl. */
export type ActivityRecord =
  | { kind: 'slot'; slot: number; work: SlotInterval['kind']; start: number; end: number }
  | { kind: 'event'; atMs: number; event: ActivityEvent };

const ms = (x: number): number => Math.round(x * 10) / 10;

/** The event as activity.jsonl keeps it, or undefined for those it does not (the log has them, or they are the events' own). */
export function activityEvent(e: RunEvent): ActivityEvent | undefined {
  switch (e.type) {
    case 'proposal.started':
      return { type: e.type, step: e.step, task: e.task, ...(e.merge ? { merge: { parents: e.merge.parents } } : {}) };
    case 'candidate.selected':
      return { type: e.type, parent: e.parent, step: e.step, task: e.task };
    case 'evaluation.started':
      return { type: e.type, target: e.target, step: e.step, task: e.task };
    case 'reflection.started':
      return { type: e.type, step: e.step, task: e.task };
    case 'proposal.ended':
      return { type: e.type, step: e.step, task: e.task, outcome: e.outcome };
    case 'warning':
      return { type: e.type, message: e.message };
    case 'error':
      // A failed metric call is in log.jsonl (its evaluation's failure); the rest only here.
      return e.failure ? undefined : { type: e.type, message: e.message, ...(e.systemic ? { systemic: true } : {}) };
    case 'retry.scheduled':
      return { type: e.type, model: e.model, attempt: e.attempt, maxAttempts: e.maxAttempts, delayMs: e.delayMs, reason: e.reason };
    default:
      return undefined;
  }
}

/** Appends a run's activity to `path` (replacing what a previous process wrote: its times were on another start). */
export interface ActivityLog {
  /** A run event at `atMs` since the run started (kept only if activityEvent keeps it). */
  event(e: RunEvent, atMs: number): void;
  /** A slot's interval, measured from `startedAt` (the run's start on the same clock). */
  slot(interval: SlotInterval, startedAt: number): void;
  /** Flushes and closes the file. */
  close(): Promise<void>;
}

export function createActivityLog(path: string): ActivityLog {
  const file = createJsonLinesFile(path);
  const write = (record: ActivityRecord) => file.write(record);
  return {
    event(e, atMs) {
      const kept = activityEvent(e);
      if (kept) write({ kind: 'event', atMs: ms(atMs), event: kept });
    },
    slot(interval, startedAt) {
      write({ kind: 'slot', slot: interval.slot, work: interval.kind, start: interval.start - startedAt, end: interval.end - startedAt });
    },
    close: () => file.close(),
  };
}

/** Parses activity.jsonl's whole lines (blank lines skipped). */
export function parseActivityLog(text: string): ActivityRecord[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as ActivityRecord);
}
