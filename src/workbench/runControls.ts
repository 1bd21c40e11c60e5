// The workbench's controls, each a plain request that the page and `gepa-actors control` make alike:
// drain (nothing new starts, what is in flight finishes: the STOP file), stop (the same, and the
// calls still in flight after 5 s are aborted: a STOP file reading `now`), resume (a stopped or
// finished run goes on, with a larger budget, in a process of its own), branch (a new run in
// `<runDir>/branches/<n>/` that starts from one of the run's candidates with changed settings).
// A run in this process is drained and stopped through its own signals. A request that cannot be
// carried out is a ControlError with an HTTP status and a sentence, and changes nothing.
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../storage/atomicFile.js';
import { isRunLockHeld } from '../storage/runLock.js';
import { RUN_FILES, isResumableStop } from '../storage/runDirectory.js';
import { STOP_NOW, STOP_NOW_GRACE_MS } from '../storage/stopRequests.js';
import { errorMessage } from '../errors/errorMessage.js';
import { branchPaths, nextBranchNumber, BRANCHES_DIR, type BranchRecord } from './runBranches.js';
import type { CommandLauncher, LaunchedCommand } from './commandLauncher.js';
import { readInvocation } from '../storage/runInvocation.js';
import type { RunView } from './runView.js';

/** What a control asks: the JSON body of `POST /api/control`, and `gepa-actors control`'s arguments. */
export type ControlRequest =
  | {
      /** Nothing new starts; the proposals in flight finish; the run ends with its result. */
      action: 'drain';
    }
  | {
      /** As drain, and the calls still in flight after 5 s are aborted (resuming makes them again). */
      action: 'stop';
    }
  | {
      /** A stopped or finished run goes on, in a process of its own. */
      action: 'resume';
      /** The new budget in metric calls (required to continue a finished run: larger than its budget). */
      budget?: number;
    }
  | {
      /** A new run from one of this run's candidates, in `<runDir>/branches/<n>`. */
      action: 'branch';
      /** The candidate it starts from (0 is the seed). */
      candidate: number;
      /** Its budget in metric calls (default: the run's). */
      budget?: number;
      /** Its schedule as `--schedule` takes it: `batched`, `batched:PxN`, `async:K`, `async:KxN` (default: the run's). */
      schedule?: string;
      /** Its reflection model (`gepa-actors run` only; default: the run's). */
      reflectionModel?: string;
    };

const budget = z.number().int().positive().max(100_000_000);

const controlRequestSchema = z.discriminatedUnion('action', [
  z.object({ action: z.literal('drain') }).strict(),
  z.object({ action: z.literal('stop') }).strict(),
  z.object({ action: z.literal('resume'), budget: budget.optional() }).strict(),
  z
    .object({
      action: z.literal('branch'),
      candidate: z.number().int().nonnegative(),
      budget: budget.optional(),
      // The command checks the value (batched, batched:PxN, async:K, async:KxN, ...); here only its shape.
      schedule: z.string().regex(/^[a-z]+(:[0-9x]+)?$/, 'a schedule as --schedule takes it: batched, batched:PxN, async:K or async:KxN').optional(),
      reflectionModel: z.string().min(1).max(500).regex(/^[^-\s]\S*$/, 'a model name (no spaces, not starting with -)').optional(),
    })
    .strict(),
]);

/** A control that could not be carried out: its HTTP status (400 bad request, 404 unknown run, 409 not now) and why. */
export class ControlError extends Error {
  override readonly name = 'ControlError';
  constructor(
    readonly status: 400 | 404 | 409 | 500,
    message: string,
  ) {
    super(message);
  }
}

/** What a control did, in a sentence; a branch names the new run. */
export interface ControlOutcome {
  /** What was done, in a sentence. */
  message: string;
  /** The branch's directory under the run's (`branches/<n>`). */
  branch?: string;
  /** The process a resume or a branch started. */
  pid?: number;
}

/** The run a control acts on. */
export interface ControlTarget {
  /** Its run directory, when it has one. */
  dir?: string;
  view: RunView;
  /** A run in this process: its drain and stop. */
  live?: { drain(): void; stop(): void; running(): boolean };
  launch: CommandLauncher;
  /** How long a started process may take to open its run directory before the control answers anyway, ms. Default 60,000. */
  startTimeoutMs?: number;
}

/** Parses a control's body; a ControlError (400) names what is wrong. */
export function parseControlRequest(body: unknown): ControlRequest {
  const parsed = controlRequestSchema.safeParse(body);
  if (parsed.success) return parsed.data as ControlRequest;
  const issues = parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`);
  throw new ControlError(400, `invalid control: ${issues.join('; ')} (expected {"action": "drain" | "stop" | "resume" | "branch", ...})`);
}

/** Whether the run is going on: its process is this one, or a live process holds its LOCK. */
export function isRunning(target: Pick<ControlTarget, 'dir' | 'live'>): boolean {
  if (target.live?.running()) return true;
  return target.dir !== undefined && isRunLockHeld(target.dir);
}

/** Which controls the run takes now, and why not the others (the page greys them with the reason). */
export function availableControls(target: Pick<ControlTarget, 'dir' | 'live' | 'view'>): Record<ControlRequest['action'], string | null> {
  const running = isRunning(target);
  const invocation = target.dir !== undefined ? readInvocation(target.dir) : undefined;
  const notRunning = 'the run is not running';
  const startable =
    target.dir === undefined
      ? 'the run has no run directory'
      : !invocation
        ? 'the run was not started by the gepa-actors command (no invocation.json)'
        : null;
  return {
    drain: running ? null : notRunning,
    stop: running ? null : notRunning,
    resume: running ? 'the run is running: drain or stop it first' : startable ?? (existsSync(join(target.dir as string, RUN_FILES.config)) ? null : 'the directory holds no run yet'),
    branch: startable ?? (target.view.candidates.some((c) => c.candidate) ? null : 'no candidate yet'),
  };
}

export async function runControl(target: ControlTarget, request: ControlRequest): Promise<ControlOutcome> {
  switch (request.action) {
    case 'drain':
    case 'stop':
      return stopRun(target, request.action);
    case 'resume':
      return resumeRun(target, request.budget);
    case 'branch':
      return branchRun(target, request);
  }
}

function stopRun(target: ControlTarget, action: 'drain' | 'stop'): ControlOutcome {
  if (!isRunning(target)) throw new ControlError(409, `cannot ${action}: the run is not running`);
  const now = action === 'stop';
  if (target.live?.running()) {
    if (now) target.live.stop();
    else target.live.drain();
  } else {
    // The run's process looks for the STOP file every second (src/run/durableRun.ts).
    writeFileAtomic(join(target.dir as string, RUN_FILES.stop), now ? `${STOP_NOW}\n` : '');
  }
  target.view.markStopping(now ? 'now' : 'drain');
  return {
    message: now
      ? `stopping: nothing new starts; the calls in flight get ${STOP_NOW_GRACE_MS / 1000} s, then are aborted (resuming makes them again)`
      : 'draining: nothing new starts; the proposals in flight finish, then the run ends with its result',
  };
}

/** The run's invocation, or a ControlError saying why it cannot be started again. */
function startable(target: ControlTarget, action: string): { dir: string; invocation: NonNullable<ReturnType<typeof readInvocation>> } {
  const { dir } = target;
  if (dir === undefined) throw new ControlError(409, `cannot ${action}: the run has no run directory`);
  const invocation = readInvocation(dir);
  if (!invocation) {
    throw new ControlError(409, `cannot ${action}: the run was not started by the gepa-actors command (its directory has no invocation.json); resume it from your program with optimize({ ...config, runDir, maxMetricCalls })`);
  }
  return { dir, invocation };
}

async function resumeRun(target: ControlTarget, newBudget: number | undefined): Promise<ControlOutcome> {
  const { dir, invocation } = startable(target, 'resume');
  if (isRunning(target)) throw new ControlError(409, 'cannot resume: the run is running; drain or stop it first');
  if (!existsSync(join(dir, RUN_FILES.config))) throw new ControlError(409, 'cannot resume: the directory holds no run yet');
  const { view } = target;
  const finished = view.result !== undefined && !isResumableStop(view.result.stopReason);
  const current = view.budget;
  if (newBudget !== undefined && newBudget <= view.metricCalls) {
    throw new ControlError(400, `cannot resume with a budget of ${newBudget}: the run has spent ${view.metricCalls} metric calls already`);
  }
  if (finished && (newBudget === undefined || (current !== undefined && newBudget <= current))) {
    throw new ControlError(400, `cannot resume: the run finished (${view.result?.stopReason})${current !== undefined ? ` with a budget of ${current} metric calls` : ''}; give a larger budget`);
  }
  const args = [invocation.command, ...invocation.args, '--run-dir', dir, '--resume', ...(newBudget !== undefined ? ['--budget', String(newBudget)] : [])];
  // Started once it holds the directory or has logged anything (a short resume may be over before it is seen holding it).
  const logPath = join(dir, RUN_FILES.log);
  const logged = sizeOf(logPath);
  const child = target.launch(args, { cwd: invocation.cwd, logPath: join(dir, 'resume.log') });
  const started = await startedOrExited(child, () => isRunLockHeld(dir) || sizeOf(logPath) > logged, target.startTimeoutMs);
  if (!started.ok) throw new ControlError(400, `the resumed run did not start: ${started.why}`);
  view.setRunning(true);
  return { message: `resumed${newBudget !== undefined ? ` with a budget of ${newBudget} metric calls` : ''} in process ${child.pid}; its output: ${join(dir, 'resume.log')}`, ...(child.pid !== undefined ? { pid: child.pid } : {}) };
}

async function branchRun(target: ControlTarget, request: Extract<ControlRequest, { action: 'branch' }>): Promise<ControlOutcome> {
  const { dir, invocation } = startable(target, 'branch');
  const from = target.view.candidates[request.candidate];
  if (!from?.candidate) throw new ControlError(400, `cannot branch: the run has no candidate #${request.candidate} (it has ${target.view.candidates.length})`);
  if (request.reflectionModel !== undefined && invocation.command === 'demo') {
    throw new ControlError(400, "cannot branch with another reflection model: the demo's reflection model is simulated (branch a `gepa-actors run` instead)");
  }
  mkdirSync(join(dir, BRANCHES_DIR), { recursive: true });
  const n = nextBranchNumber(dir);
  const paths = branchPaths(dir, n);
  const changes = {
    ...(request.budget !== undefined ? { budget: request.budget } : {}),
    ...(request.schedule !== undefined ? { schedule: request.schedule } : {}),
    ...(request.reflectionModel !== undefined ? { reflectionModel: request.reflectionModel } : {}),
  };
  const record: BranchRecord = { version: 1, n, candidate: request.candidate, ...(from.valScore !== undefined ? { score: from.valScore } : {}), changes, createdAt: new Date().toISOString() };
  writeFileSync(paths.seed, `${JSON.stringify(from.candidate, null, 2)}\n`);
  writeFileSync(paths.record, `${JSON.stringify(record, null, 2)}\n`);
  const args = [
    invocation.command,
    ...invocation.args,
    '--run-dir', paths.runDir,
    '--seed-candidate', paths.seed,
    ...(request.budget !== undefined ? ['--budget', String(request.budget)] : []),
    ...(request.schedule !== undefined ? ['--schedule', request.schedule] : []),
    ...(request.reflectionModel !== undefined ? ['--reflection-model', request.reflectionModel] : []),
  ];
  let started: StartOutcome;
  try {
    const child = target.launch(args, { cwd: invocation.cwd, logPath: paths.log });
    started = await startedOrExited(child, () => existsSync(join(paths.runDir, RUN_FILES.config)), target.startTimeoutMs);
    if (started.ok) {
      return { message: `branch ${n} started from candidate #${request.candidate} in process ${child.pid}: ${paths.runDir}`, branch: `${BRANCHES_DIR}/${n}`, ...(child.pid !== undefined ? { pid: child.pid } : {}) };
    }
  } catch (error) {
    started = { ok: false, why: errorMessage(error) };
  }
  // Refused (a bad setting, most often): nothing of it is left behind.
  const why = `${started.why}${existsSync(paths.log) ? lastLines(paths.log) : ''}`;
  for (const path of [paths.runDir, paths.seed, paths.record, paths.log]) rmSync(path, { recursive: true, force: true });
  throw new ControlError(400, `the branch did not start: ${why}`);
}

type StartOutcome = { ok: true } | { ok: false; why: string };

/** Waits until `opened()` (the run took its directory) or the process exits first (refused). */
function startedOrExited(child: LaunchedCommand, opened: () => boolean, timeoutMs = 60_000): Promise<StartOutcome> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: StartOutcome) => {
      if (settled) return;
      settled = true;
      clearInterval(poll);
      clearTimeout(timeout);
      child.off('exit', onExit);
      resolve(outcome);
    };
    const onExit = (code: number | null, signal: string | null) => (opened() ? finish({ ok: true }) : finish({ ok: false, why: `the command exited with ${code ?? signal}` }));
    child.once('exit', onExit);
    child.once('error', (error) => finish({ ok: false, why: errorMessage(error) }));
    const poll = setInterval(() => opened() && finish({ ok: true }), 50);
    // Slow to open (loading a local model): it is running; the page follows it.
    const timeout = setTimeout(() => finish({ ok: true }), timeoutMs);
  });
}

const sizeOf = (path: string): number => {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
};

/** The last lines a refused command printed, for the error. */
function lastLines(path: string): string {
  const lines = readFileSync(path, 'utf8').trim().split('\n').filter((l) => l.trim() !== '' && !l.startsWith('(add --help'));
  return lines.length > 0 ? `: ${lines.slice(-3).join(' / ')}` : '';
}
