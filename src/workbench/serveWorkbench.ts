// serveWorkbench: the library's way to the workbench (the `gepa-actors/workbench` entry). Given a
// run directory, it follows it as another process writes it (or shows the finished run); given an
// optimizer actor of this process (createActor(optimizerMachine, ...)), it subscribes to its
// events and inspection and drains or stops it by message. Either way it returns the URL (with
// its token) and a close function. Room workbench/: imported by the command (src/cli/) and the entries.
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { systemClock, type Clock } from '../clock.js';
import type { OptimizeResult } from '../gepa/core/optimizeResult.js';
import type { RunEvent } from '../gepa/core/runEvent.js';
import type { SlotInterval } from '../evaluation/workerSlots.js';
import { ConfigError } from '../errors/configError.js';
import { STOP_NOW_GRACE_MS } from '../storage/stopRequests.js';
import { LiveRunFeed, type LiveStops } from './liveRun.js';
import { RunView } from './runView.js';
import { startWorkbenchServer, type WorkbenchServer, type WorkbenchServerOptions } from './workbenchServer.js';

/** A subscription of an actor: how to end it. */
export interface ActorSubscription {
  /** Stops listening. */
  unsubscribe(): void;
}

/**
 * What serveWorkbench reads of an optimizer actor (XState's Actor of the package's
 * optimizerMachine): its emitted run events, its inspection, its snapshot and its mailbox.
 */
export interface WorkbenchActor {
  /** `actor.on('*', ...)`: every RunEvent the optimizer emits. */
  on(type: '*', handler: (event: { type: string }) => void): ActorSubscription;
  /** Its snapshots (status 'done' carries the result as `output`). */
  subscribe(observer: { next?: (snapshot: unknown) => void; error?: (error: unknown) => void; complete?: () => void }): ActorSubscription;
  /** Its snapshot now (the run's settings are read from it when it shows them). */
  getSnapshot(): unknown;
  /** The optimizer takes `{ type: 'stop', reason, graceful }`: a graceful one drains, another aborts what is in flight. */
  send(event: { type: 'stop'; reason: 'stopped' | 'aborted'; graceful?: boolean }): void;
  /** XState's actor system. */
  system: {
    /** XState's inspection of every actor of the system: the actor view is drawn from it. */
    inspect(observer: (event: unknown) => void): ActorSubscription;
  };
}

/** serveWorkbench's options: a run directory, or an optimizer actor of this process. */
export interface ServeWorkbenchOptions {
  /** A run directory (optimize's runDir, the CLI's run directory): followed while it grows. */
  runDir?: string;
  /** An optimizer actor (createActor(optimizerMachine, { input })), started or not. */
  actor?: WorkbenchActor;
  /** Default 0: a free port. */
  port?: number;
  /** Default 127.0.0.1. Any other address needs `allowRemote: true`. */
  host?: string;
  /** Serve on a non-loopback host: whoever can reach it and has the URL can steer the run. */
  allowRemote?: boolean;
  /** The page's title. */
  title?: string;
}

/** A served workbench. */
export interface Workbench {
  /** `http://127.0.0.1:<port>/?token=<token>`: open it in a browser. */
  url: string;
  /**
   * With `actor`: the worker-slot timeline is drawn from these (the actor does not emit them); pass
   * it as the run's `onSlotInterval`, e.g. `onSlotInterval: (i) => workbench?.onSlotInterval(i)`.
   */
  onSlotInterval(interval: SlotInterval): void;
  /** Stops serving (the run goes on). */
  close(): Promise<void>;
}

/** The settings of the actor's run, read from its snapshot if it shows them (the package's optimizerMachine does). */
function actorSettings(snapshot: unknown): { settings?: Parameters<RunView['applySettings']>[0]; runDir?: string } {
  try {
    const context = (snapshot as { context?: { wiring?: { getSnapshot(): { context: { prepared: { settings: Parameters<RunView['applySettings']>[0]; config: { runDir?: string } } } } } } }).context;
    const prepared = context?.wiring?.getSnapshot().context.prepared;
    return prepared ? { settings: prepared.settings, ...(prepared.config.runDir !== undefined ? { runDir: prepared.config.runDir } : {}) } : {};
  } catch {
    return {};
  }
}

/** Serves the workbench for `runDir` or `actor` on loopback; resolves once it listens. */
export function serveWorkbench(options: ServeWorkbenchOptions): Promise<Workbench> {
  return startWorkbench(options);
}

/** serveWorkbench with what tests and the command choose besides: how resumed runs and branches start, the poll, the clock. */
export async function startWorkbench(options: ServeWorkbenchOptions, more: Pick<WorkbenchServerOptions, 'launch' | 'pollMs'> & { clock?: Clock } = {}): Promise<Workbench> {
  if ((options.runDir === undefined) === (options.actor === undefined)) throw new ConfigError('serveWorkbench: give exactly one of runDir (a run directory) or actor (an optimizer actor)');
  const serverOptions: WorkbenchServerOptions = {
    ...(options.port !== undefined ? { port: options.port } : {}),
    ...(options.host !== undefined ? { host: options.host } : {}),
    ...(options.allowRemote !== undefined ? { allowRemote: options.allowRemote } : {}),
    ...more,
  };
  if (options.runDir !== undefined) {
    const dir = resolve(options.runDir);
    let isDir = false;
    try {
      isDir = statSync(dir).isDirectory();
    } catch {
      // Not there (yet): followed as it appears.
    }
    if (!isDir && statExists(dir)) throw new ConfigError(`serveWorkbench: runDir ${dir} is not a directory`);
    const server = await startWorkbenchServer({ dir, ...(options.title ? { title: options.title } : {}) }, serverOptions);
    return { url: server.url, onSlotInterval: () => {}, close: () => server.close() };
  }
  return serveActor(options.actor as WorkbenchActor, options, serverOptions, more.clock ?? systemClock);
}

function statExists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

async function serveActor(actor: WorkbenchActor, options: ServeWorkbenchOptions, serverOptions: WorkbenchServerOptions, clock: Clock): Promise<Workbench> {
  const { settings, runDir } = actorSettings(actor.getSnapshot());
  const view = new RunView({ live: true });
  if (settings) view.applySettings(settings);
  let server: WorkbenchServer | undefined;
  let grace: ReturnType<typeof setTimeout> | undefined;
  const stops: LiveStops = {
    drain: () => actor.send({ type: 'stop', reason: 'stopped', graceful: true }),
    stop: () => {
      actor.send({ type: 'stop', reason: 'stopped', graceful: true });
      grace ??= setTimeout(() => actor.send({ type: 'stop', reason: 'aborted' }), STOP_NOW_GRACE_MS);
    },
  };
  const feed = new LiveRunFeed(view, clock, () => server?.changed(), stops);
  const subscriptions = [
    actor.on('*', (event) => feed.onEvent(event as RunEvent)),
    actor.system.inspect((event) => feed.inspect(event)),
    actor.subscribe({
      next: (snapshot) => {
        const s = snapshot as { status?: string; output?: OptimizeResult; error?: unknown };
        if (s.status === 'done' && s.output) {
          if (grace !== undefined) clearTimeout(grace);
          feed.finished({ title: options.title ?? 'GEPA run', result: s.output, workers: view.workers ?? 1, schedule: view.schedule ?? { kind: 'batched', parents: 1, perParent: 1 }, minibatchSize: view.minibatchSize ?? 3, ...(view.budget !== undefined ? { budget: view.budget } : {}), slotIntervals: view.slotIntervals, runStartedAt: view.slotsStartedAt, modelUsage: view.modelUsage(), observedFrom: 'the run log' });
        }
      },
      error: (error) => feed.failed(String((error as Error)?.message ?? error)),
    }),
  ];
  server = await startWorkbenchServer({ live: feed, ...(runDir !== undefined ? { dir: resolve(runDir) } : {}), ...(options.title ? { title: options.title } : {}) }, serverOptions);
  const started = server;
  return {
    url: started.url,
    onSlotInterval: (interval) => feed.onSlotInterval(interval),
    async close() {
      if (grace !== undefined) clearTimeout(grace);
      for (const s of subscriptions) s.unsubscribe();
      await started.close();
    },
  };
}
