// One optimization run as the CLI runs it: progress display, Ctrl-C handling (a first Ctrl-C
// stops within seconds), a line when calls stop finishing, slot intervals
// and (optionally) XState inspection recorded for the report, with the slots and proposals' stages
// for a watcher of the run directory (activity.jsonl), on the system clock. Both `demo`
// and `run` go through here; they differ only in how they build the config and what they print.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { systemClock } from '../clock.js';
import { prepareRun } from '../run/prepareRun.js';
import type { PreparedRun, RunSettings } from '../run/preparedRun.js';
import { optimize } from '../../machines/optimize.js';
import { RunFailedError } from '../run/runFailedError.js';
import { createInspectionLog, type InspectionLog, type InspectionRecord } from '../report/inspectionLog.js';
import { ACTIVITY_FILE, createActivityLog, type ActivityLog } from '../report/activityLog.js';
import { observeRun, type ModelNames, type RunObservation } from '../report/runObserver.js';
import { installSignalHandlers, watchStopFile } from '../storage/stopRequests.js';
import type { OptimizeConfig } from '../config/optimizeConfig.js';
import type { OptimizeResult } from '../gepa/core/optimizeResult.js';
import type { RerunNotice } from '../gepa/core/runEvent.js';
import type { SlotInterval } from '../evaluation/workerSlots.js';
import { wantsLiveDisplay, type CliIo } from './cliIo.js';
import { InterruptedError } from './exitCodes.js';
import { createProgressDisplay, type ProgressDisplay } from './progressDisplay.js';
import { STALL_NOTICE_MS, StallWatch } from './stallWatch.js';
import { formatDuration } from '../runtimeModel/index.js';
import { STOP_NOW_GRACE_MS } from '../storage/stopRequests.js';
import type { LiveRunFeed } from '../workbench/liveRun.js';
import { writeInvocation, type RunInvocation } from '../storage/runInvocation.js';
import type { WorkbenchServer } from '../workbench/workbenchServer.js';
import type { ReportInput } from '../report/renderReport.js';
import type { UiSettings } from './workbenchListen.js';

export interface SessionInput<Example> {
  /** Everything but the hooks this module adds (events, intervals, signals, inspect, clock). */
  config: OptimizeConfig<Example>;
  io: CliIo;
  /** Record XState inspection events (written to inspect.jsonl in the run directory, which it needs) and the run's activity (activity.jsonl: worker slots, proposals' stages, for `gepa-actors watch`). */
  inspect?: boolean;
  /** How the report names the task and reflection models (default: their `model` property). */
  models?: ModelNames;
  /** After the first Ctrl-C, calls in flight get this long before they are abandoned. Default ABANDON_AFTER_MS. */
  abandonAfterMs?: number;
  /** Quiet this long (no call finished) is told to the user. Default STALL_NOTICE_MS. */
  stallNoticeMs?: number;
  /** Serve the workbench beside the run (--ui); nothing of it is made otherwise. */
  ui?: UiSettings;
  /** How the command started the run: written to invocation.json once the run has opened its directory. */
  invocation?: RunInvocation;
}

/** The workbench served beside a run (--ui): its URL; the finished run's report input; closing it. */
export interface SessionWorkbench {
  url: string;
  /** The report's input (the finished view is exactly it). */
  finished(input: ReportInput): void;
  close(): Promise<void>;
}

/** A run validated once, with this module's hooks in it; `start` runs it. */
export interface PreparedSession {
  /** Check the run directory against it, then amend it (amendPreparedRun) with what the check found. */
  prepared: PreparedRun;
  /** How the report names the task and reflection models. */
  models: { task: string; reflection: string };
  /** Runs `run`: `prepared`, amended. */
  start(run: PreparedRun): Promise<SessionOutput>;
}

/** A first Ctrl-C stops within this: calls still in flight then are abandoned (not logged; a resume makes them again). */
export const ABANDON_AFTER_MS = 5_000;

export const INSPECT_FILE = 'inspect.jsonl';

export interface SessionOutput {
  result: OptimizeResult;
  settings: RunSettings;
  slotIntervals: SlotInterval[];
  /** systemClock time the optimizer started at (the intervals' time base). */
  startedAt: number;
  inspection?: readonly InspectionRecord[];
  /** Tokens per model and valset answers, observed at the adapter and reflection model (for the report). */
  observation: RunObservation;
  /** valIds[j]: the example-table id of valset example j (the run log's keys use them). */
  valIds: readonly number[];
  /** With --ui: the workbench, still serving. */
  workbench?: SessionWorkbench;
  /** The run failed (`result` is its partial result): the command prints this error's message and exits 1. */
  failure?: RunFailedError;
  /** This process's failovers on BullMQ workers ('calls.rerun' events). */
  reruns: RerunNotice[];
}

/**
 * Validates the config (throws ConfigError naming the field) and adds the session's hooks, which
 * forward to what `start` sets up: nothing is written or started here.
 */
export function prepareSession<Example>({ config: given, io, inspect = false, models, abandonAfterMs = ABANDON_AFTER_MS, stallNoticeMs = STALL_NOTICE_MS, ui, invocation }: SessionInput<Example>): PreparedSession {
  const { config, observation } = observeRun(given, models);
  const clock = systemClock;
  let display: ProgressDisplay | undefined;
  let inspection: InspectionLog | undefined;
  // --inspect with a run directory: the slots and proposals' stages for a watcher in another process.
  let activity: ActivityLog | undefined;
  let stall: StallWatch | undefined;
  const slotIntervals: SlotInterval[] = [];
  const reruns: RerunNotice[] = [];
  // The report's timeline and the result's discovery times must share a time base: the
  // machine's start, which run.started marks (setting up a run directory comes before it).
  let startedAt = 0;
  let sawStart = false;
  const drain = new AbortController();
  const abort = new AbortController();
  const grace = formatDuration(abandonAfterMs);
  // The workbench's feed (--ui only): the run's events, slots and inspection, folded for the page.
  let feed: LiveRunFeed | undefined;
  let runDirOpened: string | undefined;
  const prepared = prepareRun({
    ...config,
    clock,
    drainSignal: drain.signal,
    signal: abort.signal,
    onEvent: (event) => {
      if (event.type === 'run.started' && !sawStart) {
        sawStart = true;
        startedAt = clock.now();
        // The run has opened its directory: how it was started can be recorded beside it.
        if (invocation && runDirOpened) writeInvocation(runDirOpened, invocation);
      }
      stall?.activity(clock.now());
      if (event.type === 'calls.rerun') {
        const { type: _type, ...notice } = event;
        reruns.push(notice);
      }
      display?.onEvent(event);
      feed?.onEvent(event);
      if (sawStart) activity?.event(event, clock.now() - startedAt);
    },
    onSlotInterval: (interval) => {
      stall?.activity(clock.now());
      slotIntervals.push(interval);
      display?.onSlotInterval(interval);
      feed?.onSlotInterval(interval);
      activity?.slot(interval, startedAt);
    },
    ...(inspect || ui
      ? {
          inspect: (event: unknown) => {
            inspection?.inspect(event);
            feed?.inspect(event);
          },
        }
      : {}),
  });

  const start = async (run: PreparedRun): Promise<SessionOutput> => {
    const { settings } = run;
    const runDir = run.config.runDir;
    runDirOpened = runDir;
    const inspectPath = inspect && runDir ? join(runDir, INSPECT_FILE) : undefined;
    startedAt = clock.now();
    const watch = new StallWatch(clock.now(), stallNoticeMs, `Ctrl-C stops within ${grace}, abandoning the calls in flight (nothing is logged for them: --resume makes them again)`);
    stall = watch;
    if (runDir) await mkdir(runDir, { recursive: true });
    const shown = createProgressDisplay({
      mode: wantsLiveDisplay(io) ? 'live' : 'lines',
      stream: io.stderr,
      workers: settings.workers,
      budget: { maxMetricCalls: settings.maxMetricCalls, maxCostUsd: settings.maxCostUsd, timeoutMs: settings.timeoutMs },
      clock,
    });
    display = shown;
    // Ctrl-C once drains (nothing new starts, work in flight gets abandonAfterMs to finish, then is
    // abandoned: a hung server must not hold the stop); twice aborts at once, still with a result;
    // a third time is Node's default.
    const uninstallSignals = installSignalHandlers(drain, abort, {
      abandonAfterMs,
      clock,
      onSignal: (_signal, action) =>
        shown.notice(
          action === 'drain'
            ? `Stopping: no new proposals; the calls in flight get ${grace} to finish, then are abandoned. Press Ctrl-C again to stop now.`
            : action === 'abandon'
              ? `Abandoning the calls still in flight after ${grace}: nothing is logged for them, so resuming makes them again.`
              : 'Stopping now: aborting the calls in flight.',
        ),
    });
    // Real time, unref()'d: it must not keep the process alive, and only tells the user.
    const stallTimer = setInterval(() => {
      const line = watch.check(clock.now());
      if (line) shown.notice(line);
    }, Math.min(1000, stallNoticeMs));
    stallTimer.unref();
    // The durable run watches the STOP file too (and acts on it); this watcher only tells the user.
    const unwatchStop = runDir
      ? watchStopFile(runDir, () => shown.notice(`STOP file found in ${runDir}: no new proposals; finishing the ones in flight.`))
      : () => {};
    inspection = inspectPath ? createInspectionLog({ clock, path: inspectPath }) : undefined;
    activity = inspectPath && runDir ? createActivityLog(join(runDir, ACTIVITY_FILE)) : undefined;
    let workbench: SessionWorkbench | undefined;
    let finalCalls: number | undefined;
    let failure: RunFailedError | undefined;
    try {
      workbench = ui ? await serveBeside(run, ui) : undefined;
      const result = await optimize(run).catch((error: unknown) => {
        // A failed run still has its partial result (report, summary) and its run directory.
        if (error instanceof RunFailedError) {
          failure = error;
          return error.result;
        }
        // Stopped before the seed's valset evaluation ended: no result, but nothing is lost either.
        if (!drain.signal.aborted) throw error;
        const resume = runDir ? `; the same command with --resume continues it from ${runDir} (answered calls are logged)` : '';
        throw new InterruptedError(`interrupted before the seed candidate was evaluated: no result yet${resume}`);
      });
      finalCalls = result.metricCalls;
      return { result, settings, slotIntervals, startedAt, observation, valIds: run.table.valIds, reruns, ...(inspection ? { inspection: inspection.records } : {}), ...(failure ? { failure } : {}), ...(workbench ? { workbench } : {}) };
    } catch (error) {
      // No result to show: the page says why, and the command's error ends it.
      feed?.failed(error instanceof Error ? error.message : String(error));
      await workbench?.close();
      throw error;
    } finally {
      clearInterval(stallTimer);
      shown.stop(finalCalls);
      uninstallSignals();
      unwatchStop();
      await inspection?.close();
      await activity?.close();
    }
  };
  /** Starts the workbench on this run: its view, the feed the hooks above fill, drain and stop through this session's controllers. */
  async function serveBeside(run: PreparedRun, listen: UiSettings): Promise<SessionWorkbench> {
    // Loaded here, with --ui only: a run without it loads nothing of the workbench.
    const [{ LiveRunFeed }, { RunView }, { startWorkbenchServer }] = await Promise.all([import('../workbench/liveRun.js'), import('../workbench/runView.js'), import('../workbench/workbenchServer.js')]);
    const { settings } = run;
    const view = new RunView({ live: true, names: observation.names });
    view.applySettings({ workers: settings.workers, schedule: settings.schedule, minibatchSize: settings.minibatchSize, ...(settings.maxMetricCalls !== undefined ? { maxMetricCalls: settings.maxMetricCalls } : {}), ...(settings.maxCostUsd !== undefined ? { maxCostUsd: settings.maxCostUsd } : {}), seedCandidate: settings.seedCandidate });
    let server: WorkbenchServer | undefined;
    let stopTimer: unknown;
    feed = new LiveRunFeed(view, clock, () => server?.changed(), {
      drain: () => drain.abort(new Error('workbench: drain')),
      stop: () => {
        drain.abort(new Error('workbench: stop'));
        stopTimer ??= clock.setTimeout(() => abort.abort(new Error(`workbench: stop, the calls still in flight abandoned after ${STOP_NOW_GRACE_MS / 1000} s`)), STOP_NOW_GRACE_MS);
      },
    });
    server = await startWorkbenchServer({ live: feed, ...(run.config.runDir ? { dir: run.config.runDir } : {}), ...(invocation ? { title: invocation.title } : {}) }, { ...listen, ...(io.launch ? { launch: io.launch } : {}) });
    io.stderr.write(`workbench: ${server.url}\n`);
    const served = server;
    const liveFeed = feed;
    return {
      url: served.url,
      finished: (input) => {
        if (stopTimer !== undefined) clock.clearTimeout(stopTimer);
        liveFeed.finished(input);
      },
      close: () => {
        if (stopTimer !== undefined) clock.clearTimeout(stopTimer);
        return served.close();
      },
    };
  }

  return { prepared, start, models: observation.names };
}

/** A config run as it is (no run directory check, nothing learnt to amend it with). */
export function runSession<Example>(input: SessionInput<Example>): Promise<SessionOutput> {
  const session = prepareSession(input);
  return session.start(session.prepared);
}
