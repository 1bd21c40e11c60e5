// Follows a run directory as another process writes it: the new whole lines of log.jsonl,
// inspect.jsonl and activity.jsonl (a torn last line waits for its end), state.json and config.json when they change,
// LOCK (a process runs it: since when) and STOP (a stop was asked for). fs.watch says when to look;
// a slow poll covers the file systems where it says nothing. Reads only, and only these files.
import { closeSync, fstatSync, openSync, readFileSync, readSync, statSync, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { parseInspectionLog } from '../report/inspectionLog.js';
import { ACTIVITY_FILE, parseActivityLog } from '../report/activityLog.js';
import { readReportFacts } from '../report/reportFacts.js';
import { RUN_FILES } from '../storage/runDirectory.js';
import { parseRunLog } from '../storage/runLog.js';
import { runConfigRecordSchema, type RunConfigRecord } from '../storage/runConfigRecord.js';
import type { RunSnapshot } from '../storage/runSnapshot.js';
import { readStopRequest } from '../storage/stopRequests.js';
import { isRunLockHeld } from '../storage/runLock.js';
import { errorMessage } from '../errors/errorMessage.js';
import type { RunView } from './runView.js';
import { BRANCHES_DIR } from './runBranches.js';

/** The file `--inspect` writes beside the log (the CLI's INSPECT_FILE). */
export const INSPECT_FILE = 'inspect.jsonl';

export interface FollowerOptions {
  /** How often the files are looked at when fs.watch says nothing, ms. Default 500. */
  pollMs?: number;
  /** Wall-clock ms (LOCK's age is measured on it). Default Date.now. */
  wallClock?: () => number;
  /** Follow log.jsonl only for what a live run's events do not carry (the view was made `live`); state.json, inspect.jsonl and activity.jsonl are skipped. */
  live?: boolean;
}

/** The new whole lines appended to one file since the last read. */
class Tail {
  private offset = 0;
  private rest = Buffer.alloc(0);

  constructor(private readonly path: string) {}

  /** Bytes of whole lines appended since the last call (empty when none). */
  read(): Buffer {
    let fd: number;
    try {
      fd = openSync(this.path, 'r');
    } catch {
      return Buffer.alloc(0);
    }
    try {
      const size = fstatSync(fd).size;
      if (size < this.offset) {
        // Cut back (a resumed run drops a torn last line): what was cut was never a whole line.
        this.offset = size;
        this.rest = Buffer.alloc(0);
      }
      if (size === this.offset) return Buffer.alloc(0);
      const chunk = Buffer.alloc(size - this.offset);
      let read = 0;
      while (read < chunk.length) {
        const n = readSync(fd, chunk, read, chunk.length - read, this.offset + read);
        if (n === 0) break;
        read += n;
      }
      this.offset += read;
      const bytes = this.rest.length > 0 ? Buffer.concat([this.rest, chunk.subarray(0, read)]) : chunk.subarray(0, read);
      const end = bytes.lastIndexOf(0x0a) + 1;
      this.rest = Buffer.from(bytes.subarray(end));
      return bytes.subarray(0, end);
    } finally {
      closeSync(fd);
    }
  }
}

export class RunDirectoryFollower {
  private readonly log: Tail;
  private readonly inspect: Tail;
  private readonly activity: Tail;
  private watcher: FSWatcher | undefined;
  private timer: ReturnType<typeof setInterval> | undefined;
  private pending: ReturnType<typeof setImmediate> | undefined;
  private readonly mtimes = new Map<string, number>();
  private branchesMtime = 0;
  private logBroken = false;
  private lines = 0;
  /** config.json as last read. */
  config: RunConfigRecord | undefined;
  /** Wall-clock ms when the running process took LOCK; undefined when none holds it. */
  lockedAt: number | undefined;
  private lockLooked = false;
  /** What the STOP file asks, when there is one. */
  stopRequest: 'drain' | 'now' | undefined;

  constructor(
    readonly dir: string,
    private readonly view: RunView,
    private readonly onChange: () => void,
    private readonly options: FollowerOptions = {},
  ) {
    this.log = new Tail(join(dir, RUN_FILES.log));
    this.inspect = new Tail(join(dir, INSPECT_FILE));
    this.activity = new Tail(join(dir, ACTIVITY_FILE));
  }

  /** Reads what is there, then follows it. */
  start(): void {
    this.poll();
    try {
      this.watcher = watch(this.dir, { persistent: false }, () => this.schedule());
      this.watcher.on('error', () => this.watcher?.close());
    } catch {
      // No directory yet, or no fs.watch here: the poll alone follows it.
    }
    this.timer = setInterval(() => this.poll(), this.options.pollMs ?? 500);
    this.timer.unref();
  }

  close(): void {
    this.watcher?.close();
    if (this.timer !== undefined) clearInterval(this.timer);
    if (this.pending !== undefined) clearImmediate(this.pending);
    this.timer = undefined;
  }

  /** One look per event-loop turn, however many changes fs.watch reports. */
  private schedule(): void {
    this.pending ??= setImmediate(() => {
      this.pending = undefined;
      this.poll();
    });
  }

  /** Reads every file that changed and folds it into the view; tells onChange when anything did. */
  poll(): void {
    const before = this.lines;
    this.readConfig();
    if (!this.options.live) this.readState();
    this.readLog();
    if (!this.options.live) {
      this.readRecords(this.inspect, parseInspectionLog, (r) => this.view.applyInspection(r));
      this.readRecords(this.activity, parseActivityLog, (r) => this.view.applyActivity(r));
    }
    this.readLockAndStop();
    this.readFacts();
    this.readBranches();
    if (this.lines !== before || this.view.hasChanges()) this.onChange();
  }

  private mtime(path: string): number {
    try {
      return statSync(path).mtimeMs;
    } catch {
      return 0;
    }
  }

  /** A JSON file's content when it changed since the last look (an atomic replace is read whole, or next time). */
  private changedJson(name: string): unknown {
    const path = join(this.dir, name);
    const mtime = this.mtime(path);
    if (mtime === 0 || mtime === this.mtimes.get(name)) return undefined;
    try {
      const value: unknown = JSON.parse(readFileSync(path, 'utf8'));
      this.mtimes.set(name, mtime);
      return value;
    } catch {
      // Being replaced this instant: the next look reads it whole.
      return undefined;
    }
  }

  private readConfig(): void {
    const value = this.changedJson(RUN_FILES.config);
    if (value === undefined) return;
    const parsed = runConfigRecordSchema.safeParse(value);
    if (parsed.success) {
      this.config = parsed.data as RunConfigRecord;
      this.view.applyConfig(this.config);
    }
  }

  /** A branch made (here or by `gepa-actors control`) adds its record to branches/. */
  private readBranches(): void {
    const mtime = this.mtime(join(this.dir, BRANCHES_DIR));
    if (mtime === this.branchesMtime) return;
    this.branchesMtime = mtime;
    this.view.markLinks();
  }

  /** facts.json is written with report.html, once the run is over. */
  private readFacts(): void {
    if (!this.view.result || this.view.facts) return;
    const facts = readReportFacts(this.dir);
    if (facts) {
      this.view.facts = facts;
      this.view.applyTick();
      this.lines++;
    }
  }

  private readState(): void {
    const value = this.changedJson(RUN_FILES.state);
    if (value !== undefined) this.view.applySnapshot(value as RunSnapshot);
  }

  private readLog(): void {
    if (this.logBroken) return;
    const bytes = this.log.read();
    if (bytes.length === 0) return;
    try {
      const { records } = parseRunLog(bytes, RUN_FILES.log);
      for (const r of records) this.view.applyLogRecord(r);
      this.lines += records.length;
    } catch (error) {
      // A damaged log is the run's to report; the view says so and stops reading it.
      this.logBroken = true;
      this.view.applyEvent({ type: 'warning', message: `${RUN_FILES.log} cannot be followed any further: ${errorMessage(error)}` });
    }
  }

  /** New lines of what --inspect writes (inspect.jsonl: the actors; activity.jsonl: the slots and proposals' stages). */
  private readRecords<R>(tail: Tail, parse: (text: string) => R[], apply: (record: R) => void): void {
    const bytes = tail.read();
    if (bytes.length === 0) return;
    try {
      for (const record of parse(bytes.toString('utf8'))) apply(record);
      this.lines++;
    } catch {
      // Not ours to judge: what these files show just stays as it was.
    }
  }

  /** LOCK's time when a live process holds it: one left by a dead process on this host does not count. */
  private liveLock(): number | undefined {
    return isRunLockHeld(this.dir) ? this.mtime(join(this.dir, RUN_FILES.lock)) || undefined : undefined;
  }

  private readLockAndStop(): void {
    const lockedAt = this.liveLock();
    if (lockedAt !== this.lockedAt || !this.lockLooked) {
      this.lockLooked = true;
      this.lockedAt = lockedAt;
      this.view.setRunning(lockedAt !== undefined);
    }
    const stop = readStopRequest(this.dir);
    if (stop !== this.stopRequest) {
      this.stopRequest = stop;
      if (stop) this.view.markStopping(stop);
    }
  }

  /** Run time now for the view's charts: since LOCK was taken, while a process holds it. */
  elapsedNow(): number | undefined {
    return this.lockedAt === undefined ? undefined : (this.options.wallClock ?? Date.now)() - this.lockedAt;
  }
}
