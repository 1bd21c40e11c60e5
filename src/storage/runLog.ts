// The run log (log.jsonl): one JSON line per completed unit of paid work (a metric call, a
// reflection, an answer of the user's proposeNewTexts), per async decision, per pool addition (the seed's too), per failover and per result, appended and never rewritten. Each record is
// one write(2) of a whole line, so kill -9 loses at most the line being written; a line torn at
// the very end is dropped on reading, damage anywhere else is an error naming its line.
import { closeSync, existsSync, fdatasyncSync, openSync, readFileSync, statSync, truncateSync, writeSync } from 'node:fs';
import { z } from 'zod';
import { RunDirectoryError } from './runDirectoryError.js';
import { formatZodError } from '../errors/configError.js';
import { SCHEDULE_DECISION_KINDS } from '../gepa/core/workJournal.js';
import type { Candidate, Evaluation } from '../gepa/core/adapter.js';
import type { LmReply } from '../gepa/core/languageModel.js';
import type { OptimizeResult } from '../gepa/core/optimizeResult.js';
import type { ScheduleDecision } from '../gepa/core/workJournal.js';
import type { RerunNotice } from '../gepa/core/runEvent.js';
import { errorMessage } from '../errors/errorMessage.js';

/** One line of log.jsonl, told apart by `t` (docs/durable-runs.md). */
export type RunLogRecord =
  /** A metric call; key = `${candidateHash}:${exampleId}:${traces ? 1 : 0}`. */
  | {
      /** A metric call. */
      t: 'eval';
      /** `${candidateHash}:${exampleId}:${traces ? 1 : 0}`. */
      key: string;
      /** What it returned (a non-JSON output or trace left out). */
      evaluation: Evaluation;
    }
  /** A reflection call, keyed by the SHA-256 of its prompt (prompts are long). */
  | {
      /** A reflection call. */
      t: 'reflect';
      /** SHA-256 of the prompt. */
      promptHash: string;
      /** The model's reply. */
      reply: LmReply;
    }
  /** Dollars a process spent before its first call (the CLI's endpoint check): a resumed run still counts them. */
  | {
      /** Dollars spent before the first call. */
      t: 'prerun';
      /** How many. */
      costUsd: number;
    }
  /** An answer of the user's proposeNewTexts (as it returned it), keyed by the SHA-256 of its inputs' canonical JSON. */
  | {
      /** An answer of proposeNewTexts. */
      t: 'propose';
      /** SHA-256 of its inputs' canonical JSON. */
      inputHash: string;
      /** What it returned. */
      texts: unknown;
    }
  /**
   * An async decision, number `n` of the run's path: a resumed run walks the path in this order.
   * A record for an `n` already logged replaces it and everything after (the run left the path there).
   */
  | ({
      /** An async decision. */
      t: 'decision';
      /** Its number on the run's path, from 0. */
      n: number;
    } & ScheduleDecision)
  /** A candidate joined the pool (for readers of the log, e.g. `gepa-actors watch`; replay does not need it). */
  | {
      /** A pool addition. */
      t: 'candidate';
      /** Its pool index. */
      index: number;
      /** Pool indices of its parents. */
      parents: number[];
      /** Its mean valset score. */
      valScore: number;
      /** The candidate's texts. */
      candidate?: Candidate;
      /** Its score on each valset example, in valset order. */
      valSubscores?: number[];
      /** Metric calls spent when it joined (the result's discoveryMetricCalls). */
      metricCalls?: number;
      /** Run time when it joined, ms (the result's discoveryElapsedMs; a resumed process counts from its own start). */
      elapsedMs?: number;
      /** The reflection prompt that wrote each changed component (its reply is the `reflect` record of the prompt's SHA-256). */
      prompts?: Record<string, string>;
    }
  /** The seed candidate's valset evaluation (for readers of the log; replay does not need it). */
  | {
      /** The seed's valset scores. */
      t: 'seed';
      /** Its mean valset score. */
      valScore: number;
      /** Its score on each valset example, in valset order. */
      valSubscores: number[];
      /** Metric calls spent when it joined the pool. */
      metricCalls: number;
      /** Its texts. */
      candidate?: Candidate;
    }
  /**
   * Metric calls a remote executor ran again (or failed) after their worker was lost or they
   * hung: the calls that may have run twice, each counted once in metricCalls (for readers; replay skips it).
   */
  | ({
      /** A failover. */
      t: 'rerun';
    } & RerunNotice)
  /** A resume raised the run's budgets (null: no limit) from here on; later resumes keep them. */
  | {
      /** A budget raised on resume. */
      t: 'budget';
      /** The new metric-call budget, null for none. */
      maxMetricCalls: number | null;
      /** The new dollar budget, null for none. */
      maxCostUsd: number | null;
    }
  | {
      /** The run's result (the run is finished unless its stopReason is resumable). */
      t: 'result';
      /** The result as optimize() returned it. */
      result: OptimizeResult;
    };

const candidateSchema = z.record(z.string(), z.string());

const recordSchema = z.discriminatedUnion('t', [
  z.object({ t: z.literal('eval'), key: z.string(), evaluation: z.looseObject({ score: z.number() }) }),
  z.object({ t: z.literal('reflect'), promptHash: z.string(), reply: z.looseObject({ text: z.string() }) }),
  z.object({ t: z.literal('propose'), inputHash: z.string(), texts: z.unknown() }),
  z.object({ t: z.literal('prerun'), costUsd: z.number().nonnegative() }),
  z.object({ t: z.literal('decision'), n: z.number().int().nonnegative(), kind: z.enum(SCHEDULE_DECISION_KINDS), id: z.string(), reason: z.string().optional() }),
  z.object({
    t: z.literal('candidate'),
    index: z.number().int().nonnegative(),
    parents: z.array(z.number().int()),
    valScore: z.number(),
    candidate: candidateSchema.optional(),
    valSubscores: z.array(z.number()).optional(),
    metricCalls: z.number().optional(),
    elapsedMs: z.number().optional(),
    prompts: candidateSchema.optional(),
  }),
  z.object({ t: z.literal('seed'), valScore: z.number(), valSubscores: z.array(z.number()), metricCalls: z.number(), candidate: candidateSchema.optional() }),
  z.object({ t: z.literal('budget'), maxMetricCalls: z.number().int().positive().nullable(), maxCostUsd: z.number().positive().nullable() }),
  z.object({
    t: z.literal('rerun'),
    reason: z.enum(['worker lost', 'call overdue', 'lost too often']),
    calls: z.number().int().nonnegative(),
    workers: z.array(z.string()),
    waitedMs: z.number().nonnegative(),
    keys: z.array(z.string()),
    atMs: z.number(),
  }),
  z.object({
    t: z.literal('result'),
    result: z.looseObject({
      candidates: z.array(candidateSchema),
      parents: z.array(z.array(z.number().int())),
      valScores: z.array(z.number()),
      bestIndex: z.number().int(),
      metricCalls: z.number(),
      stopReason: z.string(),
    }),
  }),
]);

/** A run log as read: its records, and where a torn last line begins. */
export interface RunLogContents {
  /** The valid records, in order. */
  records: RunLogRecord[];
  /** Bytes of whole, valid lines; anything after them is a torn tail to cut off. */
  validBytes: number;
  /** 1-based number of the torn last line, when there was one. */
  tornLine?: number;
}

type LineParse = { ok: true; record: RunLogRecord } | { ok: false; torn: boolean; error: string };

function parseLine(text: string): LineParse {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // Invalid JSON is what a write cut short leaves behind.
    return { ok: false, torn: true, error: `invalid JSON (${errorMessage(error)})` };
  }
  const parsed = recordSchema.safeParse(value);
  if (!parsed.success) return { ok: false, torn: false, error: `not a run log record: ${formatZodError(parsed.error)}` };
  // The value as written, not zod's copy: its key order is the original's (a prompt may show it).
  return { ok: true, record: value as RunLogRecord };
}

/** Parses a whole log. `name` is how errors refer to the file. */
export function parseRunLog(bytes: Buffer, name = 'log.jsonl'): RunLogContents {
  const records: RunLogRecord[] = [];
  let start = 0;
  let line = 0;
  while (start < bytes.length) {
    line++;
    const end = bytes.indexOf(0x0a, start);
    // No newline: the process died during this write.
    if (end === -1) return { records, validBytes: start, tornLine: line };
    const parsed = parseLine(bytes.subarray(start, end).toString('utf8'));
    if (!parsed.ok) {
      if (parsed.torn && end + 1 === bytes.length) return { records, validBytes: start, tornLine: line };
      throw new RunDirectoryError(`${name} line ${line}: ${parsed.error}`);
    }
    records.push(parsed.record);
    start = end + 1;
  }
  return { records, validBytes: start };
}

/** Reads a run log file (none yet: no records). A torn last line is reported, damage elsewhere is a RunDirectoryError naming its line. */
export function readRunLog(path: string, name?: string): RunLogContents {
  if (!existsSync(path)) return { records: [], validBytes: 0 };
  return parseRunLog(readFileSync(path), name);
}

/** The JSON line of a record. An evaluation whose output or trace is not JSON keeps its score and feedback. */
export function recordLine(record: RunLogRecord): string {
  try {
    return `${JSON.stringify(record)}\n`;
  } catch (error) {
    if (record.t !== 'eval') throw error;
    const { output: _output, trace: _trace, ...rest } = record.evaluation;
    return `${JSON.stringify({ ...record, evaluation: rest })}\n`;
  }
}

/** Appends records to the log, one write per record, on one file descriptor. */
export class RunLogWriter {
  private readonly fd: number;

  /** Cuts the log back to `validBytes` first, so a torn tail does not swallow the next record. */
  constructor(path: string, validBytes: number) {
    if (existsSync(path) && statSync(path).size > validBytes) truncateSync(path, validBytes);
    this.fd = openSync(path, 'a');
  }

  append(record: RunLogRecord): void {
    const bytes = Buffer.from(recordLine(record), 'utf8');
    let written = 0;
    while (written < bytes.length) written += writeSync(this.fd, bytes, written);
  }

  /** Forces what was appended to the disk (a process crash loses nothing anyway; a machine crash would). */
  sync(): void {
    fdatasyncSync(this.fd);
  }

  close(): void {
    closeSync(this.fd);
  }
}
