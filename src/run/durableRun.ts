// optimize() with a runDir. A resumed run simply runs again from the start: the batched
// schedule is deterministic for a seed, and every call an earlier process completed is replayed
// from the log instead of paid again, so the result equals an uninterrupted run's. The async
// schedule walks its logged decisions in order to ask for the same calls (runJournal.ts); logged
// calls it still never asks for were paid all the same, and the result counts them. Work in
// flight at a crash is redone; a run whose log ends with its result returns that result at once.
import { resolve } from 'node:path';
import { checkRunDir } from '../storage/runDirAccess.js';
import { readRunDirectory, resumedSettings, RunSession } from '../storage/runDirectory.js';
import { runConfigRecord, UNNAMED_FUNCTION } from '../storage/runConfigRecord.js';
import { RunJournal } from '../storage/runJournal.js';
import { ConfigError } from '../errors/configError.js';
import type { PreparedRun } from './preparedRun.js';
import { evaluationCachePolicy } from './prepareRun.js';
import { finishedSnapshot, foldRunEvent, initialSnapshot, type RunSnapshot } from '../storage/runSnapshot.js';
import { STOP_NOW_GRACE_MS, watchStopRequests } from '../storage/stopRequests.js';
import type { OptimizeResult } from '../gepa/core/optimizeResult.js';
import type { RunEvent } from '../gepa/core/runEvent.js';

/**
 * Builds the run and returns what starts it. optimize() passes the optimizer machine's; src/
 * knows nothing of actors.
 */
export type LaunchRun = (prepared: PreparedRun) => () => Promise<OptimizeResult>;

export interface DurableRunOptions {
  /** How often the STOP file is looked for, real milliseconds. Default 1000. */
  stopPollMs?: number;
  /** A STOP file reading `now`: the calls in flight get this long (on the run's clock) before they are aborted. Default STOP_NOW_GRACE_MS. */
  stopNowGraceMs?: number;
}

/**
 * Turns the optimizer's events into log records (pool additions, failovers) and state.json checkpoints. Pool additions are
 * logged with what a reader of the directory (`gepa-actors watch`) draws: per-example scores, when
 * they were found, and the reflection prompts that wrote them (kept per proposal until it ends).
 */
class RunRecorder {
  private snapshot: RunSnapshot;
  private pending: ReturnType<typeof setImmediate> | undefined;
  /** `${step}:${task}` -> the prompts of that proposal's reflection, until it ends. */
  private readonly prompts = new Map<string, Record<string, string>>();

  constructor(
    private readonly session: () => RunSession | undefined,
    seedSnapshot: RunSnapshot,
    private loggedCandidates: number,
    private seedLogged: boolean,
  ) {
    this.snapshot = seedSnapshot;
  }

  onEvent(event: RunEvent): void {
    // Which calls may have run twice: the log says it, so nothing is paid twice unrecorded.
    if (event.type === 'calls.rerun') {
      const { type: _type, ...notice } = event;
      this.session()?.append({ t: 'rerun', ...notice });
    }
    if (event.type === 'reflection.ended' && event.prompts) this.prompts.set(`${event.step}:${event.task}`, event.prompts);
    // An accepted proposal's end comes just before its candidate, which takes the prompts.
    else if (event.type === 'proposal.ended' && event.outcome !== 'accepted') this.prompts.delete(`${event.step}:${event.task}`);
    else if (event.type === 'seed.evaluated' && !this.seedLogged) {
      this.session()?.append({ t: 'seed', valScore: event.valScore, valSubscores: event.valSubscores, metricCalls: event.metricCalls ?? 0, ...(event.candidate ? { candidate: event.candidate } : {}) });
      this.seedLogged = true;
    } else if (event.type === 'candidate.accepted' && event.index >= this.loggedCandidates) {
      const { index, parents, valScore, candidate, valSubscores, metricCalls, elapsedMs } = event;
      const key = `${event.step}:${event.task}`;
      const prompts = this.prompts.get(key);
      this.prompts.delete(key);
      this.session()?.append({
        t: 'candidate', index, parents, valScore,
        ...(candidate ? { candidate } : {}),
        ...(valSubscores ? { valSubscores } : {}),
        ...(metricCalls !== undefined ? { metricCalls } : {}),
        ...(elapsedMs !== undefined ? { elapsedMs } : {}),
        ...(prompts ? { prompts } : {}),
      });
      this.loggedCandidates = index + 1;
    }
    this.snapshot = foldRunEvent(this.snapshot, event);
    // One checkpoint per event-loop turn however many candidates one fold added.
    if ((event.type === 'candidate.accepted' || event.type === 'front.updated') && this.pending === undefined) {
      this.pending = setImmediate(() => {
        this.pending = undefined;
        this.session()?.checkpoint(this.snapshot);
      });
    }
  }

  finish(result: OptimizeResult): void {
    this.cancel();
    const session = this.session();
    session?.append({ t: 'result', result });
    session?.checkpoint(finishedSnapshot(result, this.snapshot.frontSize));
  }

  cancel(): void {
    if (this.pending !== undefined) clearImmediate(this.pending);
    this.pending = undefined;
  }
}

/** The result with the logged work of earlier processes that this one never replayed: it was paid. */
function countingUnreplayed(result: OptimizeResult, journal: RunJournal): OptimizeResult {
  const { evaluations, reflections, usd } = journal.unreplayed;
  if (evaluations === 0 && reflections === 0) return result;
  return { ...result, metricCalls: result.metricCalls + evaluations, reflectionCalls: result.reflectionCalls + reflections, costUsd: result.costUsd + usd };
}

/** A validated run (prepareRun) with a runDir: checked against its directory before anything is written. */
export async function runInDirectory(given: PreparedRun, launch: LaunchRun, options: DurableRunOptions = {}): Promise<OptimizeResult> {
  const { config } = given;
  if (config.runDir === undefined) throw new ConfigError('invalid optimize config: runDir: required for a durable run');
  // The command's rule too: an empty or new directory starts a run, one holding a run resumes it, any other is refused.
  checkRunDir(config.runDir, 'continue');
  const dir = resolve(config.runDir);
  // A run resumed without a setting whose default changed since goes on with the one it started with.
  const startedWith = resumedSettings(dir, config, given.settings);
  // The evaluation cache as the run started with it (its mode and folder), when the config leaves it unset.
  const cacheResumed = startedWith.cacheEvaluation !== given.settings.cacheEvaluation || startedWith.cacheDir !== given.settings.cacheDir;
  const prepared: PreparedRun =
    startedWith === given.settings ? given : { ...given, settings: startedWith, ...(cacheResumed ? { evaluationCache: evaluationCachePolicy(config, startedWith, given.table) } : {}) };
  if (prepared.journal) throw new ConfigError('invalid optimize config: journal: cannot be combined with runDir (the run directory is the journal)');
  const record = runConfigRecord(config, prepared.settings, prepared.datasetFingerprints);
  // Read once: a caller that checked the directory already (the CLI, before the endpoint) passes it on.
  const existing = prepared.runDirectory?.dir === dir ? prepared.runDirectory : readRunDirectory(dir, record);
  // Found at the start rather than when the user tries to resume after a crash.
  if (existing.isNew && record.settings.reflectionLm === UNNAMED_FUNCTION) {
    throw new ConfigError(
      'invalid optimize config: runIdentity.reflectionLm: a run directory must be resumable, and a reflection model given as a function ' +
        'cannot be checked to be the same model on resume: name it, e.g. runIdentity: { reflectionLm: \'my-model@v1\' } (or pass a model string such as \'openai:gpt-5-mini\')',
    );
  }
  if (existing.finishedResult) return existing.finishedResult;
  // A resumed run spends up to the budgets it was last given (raised now, or by an earlier resume).
  const resumed = existing.budgets?.budgets;
  const settings = resumed ? { ...prepared.settings, maxMetricCalls: resumed.maxMetricCalls, maxCostUsd: resumed.maxCostUsd } : prepared.settings;

  let session: RunSession | undefined;
  const recorder = new RunRecorder(() => session, initialSnapshot(settings.seedCandidate), existing.loggedCandidates, existing.log.records.some((r) => r.t === 'seed'));
  // A batched run whose budget was ever raised holds its logged work against the budget from the
  // start; an async one retakes its logged path under the budgets it was taken with (RunJournal.heldWork).
  const raisedEver = existing.budgets?.raised !== undefined || existing.log.records.some((r) => r.t === 'budget');
  const budgets = existing.budgets && { original: existing.budgets.original, now: { maxMetricCalls: settings.maxMetricCalls, maxCostUsd: settings.maxCostUsd } };
  const journal = new RunJournal(existing.log.records, (r) => session?.append(r), raisedEver, budgets);
  // Failed calls are paid again on resume, and the seed's valset evaluation comes first: without
  // room for both, the run could only pass its budget.
  const { maxMetricCalls } = settings;
  const valsetSize = prepared.table.valIds.length;
  if (maxMetricCalls !== undefined && journal.failedCalls() + valsetSize > maxMetricCalls) {
    throw new ConfigError(
      `cannot resume: ${journal.failedCalls()} metric calls of this run failed and count against maxMetricCalls ${maxMetricCalls}, which leaves too little to evaluate the seed on the valset (${valsetSize} calls) again`,
    );
  }
  const stopFile = new AbortController();
  const stopNow = new AbortController();
  const onEvent = prepared.onEvent;
  const start = launch({
    ...prepared,
    settings,
    journal,
    drainSignal: prepared.drainSignal ? AbortSignal.any([prepared.drainSignal, stopFile.signal]) : stopFile.signal,
    signal: prepared.signal ? AbortSignal.any([prepared.signal, stopNow.signal]) : stopNow.signal,
    onEvent: (event) => {
      recorder.onEvent(event);
      onEvent?.(event);
    },
  });
  // The run is startable: only now is anything written.
  session = RunSession.open(existing, record);
  let grace: unknown;
  const unwatch = watchStopRequests(
    existing.dir,
    {
      onDrain: () => stopFile.abort(new Error('STOP file')),
      onNow: () => {
        grace = prepared.clock.setTimeout(() => stopNow.abort(new Error('STOP file: now')), options.stopNowGraceMs ?? STOP_NOW_GRACE_MS);
      },
    },
    options.stopPollMs,
  );
  try {
    const result = countingUnreplayed(await start(), journal);
    recorder.finish(result);
    if ((result.stopReason === 'stopped' || result.stopReason === 'aborted') && stopFile.signal.aborted) session.consumeStopFile();
    return result;
  } finally {
    if (grace !== undefined) prepared.clock.clearTimeout(grace);
    unwatch();
    recorder.cancel();
    session.close();
  }
}
