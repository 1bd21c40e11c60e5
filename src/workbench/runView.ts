// What the workbench knows of one run, folded from whatever reaches it: the run's events, slot
// intervals and inspection records when it runs in this process (run --ui, serveWorkbench({ actor }));
// the records of its directory (log.jsonl, state.json, config.json) when another process runs it or
// ran it. Each input is folded idempotently (a candidate known from an event and from its log record
// is one candidate), and each fold marks the topics it changed, so the server redraws only those.
// `reportInput()` turns it into the report's input: the workbench's panels are the report's.
import { ActorTreeBuilder, type ActorTree } from '../report/actorTree.js';
import type { InspectionRecord } from '../report/inspectionLog.js';
import type { ActivityRecord } from '../report/activityLog.js';
import { ModelUsageTally, type ModelUsage } from '../report/modelUsage.js';
import type { ReportInput } from '../report/renderReport.js';
import type { RunLogRecord } from '../storage/runLog.js';
import type { RunSnapshot } from '../storage/runSnapshot.js';
import type { RunConfigRecord } from '../storage/runConfigRecord.js';
import { promptHash } from '../storage/runJournal.js';
import { candidateHash } from '../gepa/core/candidateHash.js';
import type { Candidate, Evaluation } from '../gepa/core/adapter.js';
import type { LmReply } from '../gepa/core/languageModel.js';
import type { OptimizeResult, ProposalRecord } from '../gepa/core/optimizeResult.js';
import type { RerunNotice, RunEvent } from '../gepa/core/runEvent.js';
import { formatReruns, summarizeReruns } from '../report/rerunSummary.js';
import type { SlotInterval } from '../evaluation/workerSlots.js';
import type { ModelSchedule } from '../runtimeModel/index.js';
import { isResumableStop } from '../storage/runDirectory.js';

/** What a fold changed; the server maps topics to the panels it redraws. */
export type ViewTopic = 'pool' | 'spend' | 'status' | 'slots' | 'actors' | 'proposals' | 'inFlight' | 'notices' | 'links' | 'clock';

/** Where the run stands, as the status pill shows it. */
export type RunStatus = 'waiting' | 'running' | 'draining' | 'stopping' | 'finished' | 'stopped' | 'failed' | 'interrupted';

/** A pool candidate as the workbench knows it (fields arrive from events or log records). */
export interface CandidateView {
  index: number;
  parents: number[];
  valScore?: number;
  valSubscores?: number[];
  candidate?: Candidate;
  /** Metric calls spent, and run time (ms), when it joined. */
  metricCalls?: number;
  elapsedMs?: number;
  /** The reflection prompt that wrote each changed component. */
  prompts?: Record<string, string>;
  /** The new texts the reflection gave (live runs: the reply's extracted text). */
  newTexts?: Record<string, string>;
  /** The proposal that made it. */
  step?: number;
  task?: number;
}

/** A proposal the run has started and not finished. */
export interface ProposalInFlight {
  step: number;
  task: number;
  parent?: number;
  merge?: number[];
  /** Async perParent: the proposal whose parent evaluation it shares (it waits on that one's until it reflects). */
  siblingOf?: number;
  /** What it is doing: its parent's or child's minibatch evaluation, the reflection, the valset. */
  stage: string;
  /** Run time when it started, ms. */
  startedMs: number;
  prompts?: Record<string, string>;
  newTexts?: Record<string, string>;
}

/** A failure, warning or retry as it happened, with its cause. */
export interface RunNotice {
  level: 'error' | 'warning' | 'retry';
  message: string;
  /** How a metric call failed (`http 429`, `adapter`, ...), when one did. */
  kind?: string;
  /** It stopped the run. */
  systemic?: boolean;
  /** Run time, ms, when known. */
  atMs?: number;
}

/** How the run's models are named in the tokens-per-model table (the CLI records them in invocation.json). */
export interface ViewModelNames {
  task: string;
  reflection: string;
}

/** Keep this many notices (the count of all of them is kept too). */
const MAX_NOTICES = 200;
/** And this many slot intervals: a long 128-slot run makes hundreds of thousands; the timeline shows the latest. */
export const MAX_SLOT_INTERVALS = 20_000;

const STAGES: Record<string, string> = { parent: 'parent minibatch', child: 'child minibatch', valset: 'valset' };

export class RunView {
  status: RunStatus = 'waiting';
  /** Why the run stopped, once it has. */
  stopReason?: string;
  candidates: CandidateView[] = [];
  bestIndex = 0;
  bestScore?: number;
  front?: number[];
  metricCalls = 0;
  reserved = 0;
  costUsd = 0;
  reflectionCalls = 0;
  workers?: number;
  schedule?: ModelSchedule;
  minibatchSize?: number;
  budget?: number;
  maxCostUsd?: number;
  valsetSize?: number;
  /** The finished run's result, once logged or returned. */
  result?: OptimizeResult;
  /** The figures the command added to the report (facts.json: the demo's held-out test score). */
  facts?: ReportInput['facts'];
  /** The report's own input when this process wrote report.html (run --ui): the finished view is exactly it. */
  finishedInput?: ReportInput;
  readonly inFlight = new Map<string, ProposalInFlight>();
  readonly ended: ProposalRecord[] = [];
  readonly notices: RunNotice[] = [];
  noticeCount = 0;
  readonly slotIntervals: SlotInterval[] = [];
  slotIntervalsDropped = 0;
  /** Clock time the slot intervals are measured from (the run's start on its clock). */
  slotsStartedAt = 0;
  private readonly actors = new ActorTreeBuilder();
  actorRecords = 0;
  /** Reflection replies by prompt hash, and what each candidate's calls cost (log records). */
  private readonly replies = new Map<string, LmReply>();
  private readonly costByHash = new Map<string, { costUsd: number; unpriced: number; calls: number; inputTokens: number; outputTokens: number }>();
  private usage = new ModelUsageTally();
  /** Counters read from log records; the live run's budget events win when there are any. */
  private logged = { metricCalls: 0, costUsd: 0, reflectionCalls: 0 };
  /** A live run's budget events count the spend; log records then only add costs, replies and the result. */
  private liveSpend: boolean;
  private liveReflections = 0;
  /** `${step}:${task}` of an accepted proposal -> what its reflection wrote, until its candidate joins. */
  private readonly madeBy = new Map<string, Pick<ProposalInFlight, 'prompts' | 'newTexts' | 'parent' | 'merge'>>();
  private readonly changed = new Set<ViewTopic>();

  constructor(
    options: {
      /** How the tokens-per-model table names the models. */
      names?: ViewModelNames;
      /** Run time now, ms (the workbench's clock minus the run's start), for the live charts. */
      elapsedNow?: () => number | undefined;
      /** The run runs in this process: its events are the truth, its log records add what events do not carry. */
      live?: boolean;
    } = {},
  ) {
    this.names = options.names ?? { task: 'task model', reflection: 'reflection model' };
    this.elapsedNow = options.elapsedNow ?? (() => undefined);
    this.liveSpend = options.live === true;
  }

  names: ViewModelNames;
  elapsedNow: () => number | undefined;

  /** The topics changed since the last call, cleared. */
  takeChanges(): Set<ViewTopic> {
    const changes = new Set(this.changed);
    this.changed.clear();
    return changes;
  }

  private mark(...topics: ViewTopic[]): void {
    for (const t of topics) this.changed.add(t);
  }

  private candidateAt(index: number): CandidateView {
    while (this.candidates.length <= index) this.candidates.push({ index: this.candidates.length, parents: [] });
    return this.candidates[index] as CandidateView;
  }

  private notice(n: RunNotice): void {
    this.noticeCount++;
    this.notices.push(n);
    if (this.notices.length > MAX_NOTICES) this.notices.splice(0, this.notices.length - MAX_NOTICES);
    this.mark('notices');
  }

  /** config.json: the run's settings (workers, schedule, budgets, minibatch size). */
  applyConfig(record: RunConfigRecord): void {
    const s = record.settings as { schedule?: ModelSchedule; maxMetricCalls?: number; maxCostUsd?: number; reflectionMinibatchSize?: number };
    this.workers = record.operational.workers;
    if (s.schedule && (s.schedule.kind === 'batched' || s.schedule.kind === 'async')) this.schedule = s.schedule;
    if (this.budget === undefined && s.maxMetricCalls !== undefined) this.budget = s.maxMetricCalls;
    if (this.maxCostUsd === undefined && s.maxCostUsd !== undefined) this.maxCostUsd = s.maxCostUsd;
    if (s.reflectionMinibatchSize !== undefined) this.minibatchSize = s.reflectionMinibatchSize;
    this.valsetSize = record.fingerprints.valset.size;
    this.mark('spend', 'status');
  }

  /** The settings a live run was started with (its PreparedRun's), before any event. */
  applySettings(settings: { workers: number; schedule: ModelSchedule; minibatchSize: number; maxMetricCalls?: number; maxCostUsd?: number; seedCandidate?: Candidate }): void {
    this.workers = settings.workers;
    this.schedule = settings.schedule;
    this.minibatchSize = settings.minibatchSize;
    if (settings.maxMetricCalls !== undefined) this.budget = settings.maxMetricCalls;
    if (settings.maxCostUsd !== undefined) this.maxCostUsd = settings.maxCostUsd;
    if (settings.seedCandidate && !this.candidateAt(0).candidate) this.candidateAt(0).candidate = settings.seedCandidate;
    this.mark('spend', 'status', 'pool');
  }

  /** state.json: fills what the log does not say (a log written before candidate records held scores). */
  applySnapshot(snapshot: RunSnapshot): void {
    for (const c of snapshot.candidates) {
      const view = this.candidateAt(c.index);
      if (view.parents.length === 0 && c.parents.length > 0) view.parents = c.parents;
      if (view.valScore === undefined && c.valScore !== undefined) view.valScore = c.valScore;
      if (!view.candidate && c.candidate) view.candidate = c.candidate;
    }
    if (snapshot.bestScore !== undefined && !this.result) {
      this.bestIndex = snapshot.bestIndex;
      this.bestScore = snapshot.bestScore;
    }
    if (!this.liveSpend && snapshot.metricCalls > this.logged.metricCalls) {
      this.metricCalls = snapshot.metricCalls;
      this.costUsd = snapshot.costUsd;
    }
    if (this.status === 'waiting' && snapshot.status === 'running') this.status = 'running';
    this.mark('pool', 'spend', 'status');
  }

  /** One record of log.jsonl, in order. */
  applyLogRecord(r: RunLogRecord): void {
    // Work logged after a result: a resumed run is going on (its raised budget comes first).
    if (this.result && r.t !== 'result') {
      this.result = undefined;
      this.finishedInput = undefined;
      this.facts = undefined;
      this.stopReason = undefined;
      this.status = 'running';
      this.mark('status', 'pool', 'proposals');
    }
    switch (r.t) {
      case 'eval': {
        this.logged.metricCalls++;
        this.usage.record('task', this.names.task, r.evaluation.usage, r.evaluation.costUsd);
        this.chargeCandidate(r.key.slice(0, r.key.indexOf(':')), r.evaluation);
        if (r.evaluation.costUsd) this.logged.costUsd += r.evaluation.costUsd;
        if (!this.liveSpend && r.evaluation.failure) {
          this.notice({ level: 'error', message: `metric call ${r.key}: ${r.evaluation.feedback ?? r.evaluation.failure.kind}`, kind: r.evaluation.failure.kind });
        }
        this.syncLoggedSpend();
        return;
      }
      case 'reflect':
        this.logged.reflectionCalls++;
        if (this.liveSpend) this.reflectionCalls = Math.max(this.liveReflections, this.logged.reflectionCalls);
        this.usage.record('reflection', this.names.reflection, r.reply.usage, r.reply.costUsd);
        this.replies.set(r.promptHash, r.reply);
        if (r.reply.costUsd) this.logged.costUsd += r.reply.costUsd;
        this.syncLoggedSpend();
        return;
      case 'prerun':
        this.logged.costUsd += r.costUsd;
        this.syncLoggedSpend();
        return;
      case 'seed': {
        this.joined(0, { ...r, elapsedMs: this.candidates[0]?.elapsedMs ?? 0 });
        if (this.bestScore === undefined) this.bestScore = r.valScore;
        if (this.status === 'waiting') this.status = 'running';
        this.mark('pool', 'status');
        return;
      }
      case 'candidate': {
        this.joined(r.index, r);
        this.updateBestFromScores();
        this.mark('pool');
        return;
      }
      case 'rerun':
        // A live run's own event says it (applyEvent); a directory's reader has the record.
        if (!this.liveSpend) this.failover(r);
        return;
      case 'budget':
        this.budget = r.maxMetricCalls ?? undefined;
        this.maxCostUsd = r.maxCostUsd ?? undefined;
        this.mark('spend', 'status');
        return;
      case 'result':
        this.applyResult(r.result);
        return;
      default:
        return;
    }
  }

  /** A candidate joined the pool (an event, or its log record): what is known of it is kept. */
  private joined(index: number, from: Partial<Omit<CandidateView, 'index'>> & { valScore: number }): CandidateView {
    const c = this.candidateAt(index);
    c.valScore = from.valScore;
    if (from.parents) c.parents = from.parents;
    if (from.candidate) c.candidate = from.candidate;
    if (from.valSubscores) c.valSubscores = from.valSubscores;
    if (from.metricCalls !== undefined) c.metricCalls = from.metricCalls;
    if (from.elapsedMs !== undefined) c.elapsedMs = from.elapsedMs;
    if (from.prompts) c.prompts = from.prompts;
    return c;
  }

  /** A metric call's tokens and dollars, charged to the candidate it evaluated (its hash begins the log key). */
  private chargeCandidate(hash: string, evaluation: Evaluation): void {
    const cost = this.costByHash.get(hash) ?? { costUsd: 0, unpriced: 0, calls: 0, inputTokens: 0, outputTokens: 0 };
    cost.calls++;
    if (typeof evaluation.costUsd === 'number') cost.costUsd += evaluation.costUsd;
    else cost.unpriced++;
    cost.inputTokens += evaluation.usage?.promptTokens ?? 0;
    cost.outputTokens += evaluation.usage?.completionTokens ?? 0;
    this.costByHash.set(hash, cost);
  }

  private syncLoggedSpend(): void {
    if (this.liveSpend) return;
    this.metricCalls = this.logged.metricCalls;
    this.costUsd = this.logged.costUsd;
    this.reflectionCalls = this.logged.reflectionCalls;
    this.mark('spend');
  }

  /** Best by mean valset score, the earliest among equals (as the result's bestIndex). */
  private updateBestFromScores(): void {
    let best = -1;
    let score = -Infinity;
    for (const c of this.candidates) {
      if (c.valScore !== undefined && c.valScore > score) {
        best = c.index;
        score = c.valScore;
      }
    }
    if (best >= 0) {
      this.bestIndex = best;
      this.bestScore = score;
    }
  }

  /** The run's result: the finished view shows exactly it. */
  applyResult(result: OptimizeResult): void {
    this.result = result;
    this.stopReason = result.stopReason;
    this.status = result.stopReason === 'error' ? 'failed' : isResumableStop(result.stopReason) ? 'stopped' : 'finished';
    this.candidates = result.candidates.map((candidate, index) => ({
      ...this.candidates[index],
      index,
      candidate,
      parents: result.parents[index] ?? [],
      valScore: result.valScores[index] ?? 0,
      valSubscores: result.valSubscores[index] ?? [],
      metricCalls: result.discoveryMetricCalls[index] ?? 0,
      elapsedMs: result.discoveryElapsedMs[index] ?? 0,
    }));
    this.bestIndex = result.bestIndex;
    this.bestScore = result.bestScore;
    this.metricCalls = result.metricCalls;
    this.costUsd = result.costUsd;
    this.reflectionCalls = result.reflectionCalls;
    this.inFlight.clear();
    this.mark('pool', 'spend', 'status', 'proposals', 'inFlight');
  }

  /** The exact input this process wrote report.html from: the finished view is that report's. */
  applyFinishedInput(input: ReportInput): void {
    this.finishedInput = input;
    this.applyResult(input.result as OptimizeResult);
    this.mark('slots', 'actors');
  }

  /** One event of a run in this process, at run time `atMs`. */
  applyEvent(e: RunEvent, atMs?: number): void {
    const key = 'step' in e && 'task' in e && e.step !== undefined && e.task !== undefined ? `${e.step}:${e.task}` : '';
    switch (e.type) {
      case 'run.started':
        this.workers = e.workers;
        this.valsetSize = e.valsetSize;
        this.status = 'running';
        this.mark('status', 'spend');
        return;
      case 'seed.written':
        this.candidateAt(0).candidate = e.candidate;
        this.mark('pool');
        return;
      case 'seed.evaluated':
        this.joined(0, { ...e, elapsedMs: e.elapsedMs ?? 0 });
        this.mark('pool');
        return;
      case 'proposal.started':
        // A sibling's parent evaluation is its group's first proposal's, already asked for.
        this.inFlight.set(key, { step: e.step, task: e.task, stage: e.merge ? 'merge' : e.siblingOf !== undefined ? (STAGES.parent as string) : 'starting', startedMs: atMs ?? 0, ...(e.merge ? { merge: e.merge.parents } : {}), ...(e.siblingOf === undefined ? {} : { siblingOf: e.siblingOf }) });
        this.mark('inFlight');
        return;
      case 'candidate.selected': {
        const p = this.inFlight.get(key);
        if (p) p.parent = e.parent;
        this.mark('inFlight');
        return;
      }
      case 'evaluation.started': {
        const p = this.inFlight.get(key);
        if (p) p.stage = STAGES[e.target] ?? e.target;
        this.mark('inFlight');
        return;
      }
      case 'reflection.started': {
        const p = this.inFlight.get(key);
        if (p) p.stage = 'reflection';
        this.mark('inFlight');
        return;
      }
      case 'reflection.ended': {
        // One reflection call per component rewritten (the log, when there is one, counts them too: the larger count wins).
        this.liveReflections += Math.max(1, Object.keys(e.prompts ?? e.newTexts).length);
        if (this.liveSpend) this.reflectionCalls = Math.max(this.liveReflections, this.logged.reflectionCalls);
        const p = this.inFlight.get(key);
        if (p) {
          p.newTexts = e.newTexts;
          if (e.prompts) p.prompts = e.prompts;
        }
        return;
      }
      case 'proposal.ended': {
        const p = this.inFlight.get(key);
        this.inFlight.delete(key);
        if (e.outcome === 'accepted' && p) this.madeBy.set(key, p);
        const parents = p?.merge ?? (p?.parent !== undefined ? [p.parent] : []);
        this.ended.push({ step: e.step, task: e.task, kind: p?.merge ? 'merge' : 'reflective', parents, outcome: e.outcome, reason: e.reason, staleness: e.staleness, reflectionCostUsd: 0 });
        this.mark('inFlight', 'proposals');
        return;
      }
      case 'candidate.accepted': {
        const elapsedMs = e.elapsedMs ?? atMs;
        const c = this.joined(e.index, { ...e, ...(elapsedMs !== undefined ? { elapsedMs } : {}) });
        if (e.step !== undefined && e.task !== undefined) {
          c.step = e.step;
          c.task = e.task;
          const made = this.madeBy.get(`${e.step}:${e.task}`);
          this.madeBy.delete(`${e.step}:${e.task}`);
          if (made?.prompts) c.prompts = made.prompts;
          if (made?.newTexts) c.newTexts = made.newTexts;
          const record = this.ended.findLast((r) => r.step === e.step && r.task === e.task);
          if (record) record.candidateIndex = e.index;
        }
        this.mark('pool', 'proposals');
        return;
      }
      case 'front.updated':
        this.bestIndex = e.bestIndex;
        this.bestScore = e.bestScore;
        if (e.front) this.front = e.front;
        this.mark('pool', 'status');
        return;
      case 'budget.updated':
        this.liveSpend = true;
        this.metricCalls = e.metricCalls;
        this.reserved = e.reserved;
        this.costUsd = e.costUsd;
        this.mark('spend');
        return;
      case 'error':
        this.notice({ level: 'error', message: e.message, ...(e.failure ? { kind: e.failure.kind } : {}), ...(e.systemic ? { systemic: true } : {}), ...(atMs !== undefined ? { atMs } : {}) });
        return;
      case 'warning':
        this.notice({ level: 'warning', message: e.message, ...(atMs !== undefined ? { atMs } : {}) });
        return;
      case 'retry.scheduled':
        this.notice({ level: 'retry', message: `retrying ${e.model} in ${(e.delayMs / 1000).toFixed(1)} s (attempt ${e.attempt} of ${e.maxAttempts}): ${e.reason}`, ...(atMs !== undefined ? { atMs } : {}) });
        return;
      case 'calls.rerun':
        this.failover(e, atMs);
        return;
      case 'run.ended':
        this.stopReason = e.stopReason;
        this.mark('status');
        return;
      default:
        return;
    }
  }

  /** Calls a remote executor ran again (a worker lost, a call hung), as the summary words them. */
  private failover(n: RerunNotice, atMs?: number): void {
    const summary = summarizeReruns([n]);
    if (!summary) return;
    this.notice({ level: 'warning', message: `failover (${n.reason}${n.workers.length > 0 ? `: ${n.workers.join(', ')}` : ''}): ${formatReruns(summary)}`, ...(atMs !== undefined ? { atMs } : {}) });
  }

  /** Whether a live process holds the run directory's LOCK: a result and no holder is over; a holder and no result runs; neither, it was cut off. */
  setRunning(running: boolean): void {
    const before = this.status;
    if (running && (this.status === 'waiting' || this.status === 'interrupted' || this.result)) this.status = 'running';
    if (!running && !this.result && (this.status === 'running' || this.status === 'draining' || this.status === 'stopping')) {
      // Its process is gone: nothing is in flight any more.
      this.status = 'interrupted';
      this.inFlight.clear();
      this.mark('inFlight');
    }
    if (this.status !== before) this.mark('status');
  }

  /** A branch was made from the run, or its record changed. */
  markLinks(): void {
    this.mark('links');
  }

  /** Time passed (the workbench's once-a-second tick while the run runs). */
  applyTick(): void {
    this.mark('clock');
  }

  /** The run gave up without a result. */
  markFailed(): void {
    this.status = 'failed';
    this.inFlight.clear();
    this.mark('status', 'inFlight');
  }

  hasChanges(): boolean {
    return this.changed.size > 0;
  }

  /** A stop was asked for (by the workbench or a STOP file): the pill says so until the run ends. */
  markStopping(kind: 'drain' | 'now'): void {
    if (this.status !== 'running') return;
    this.status = kind === 'drain' ? 'draining' : 'stopping';
    this.mark('status');
  }

  /**
   * One record of activity.jsonl (what the run's process alone knows, written with --inspect): a
   * slot's interval, a proposal's stage, a notice. A proposal's end only takes it out of flight:
   * the proposals table comes from the result, as without the file.
   */
  applyActivity(record: ActivityRecord): void {
    if (record.kind === 'slot') {
      this.applySlotInterval({ slot: record.slot, kind: record.work, start: record.start, end: record.end });
      return;
    }
    const e = record.event;
    const stage = e.type !== 'warning' && e.type !== 'error' && e.type !== 'retry.scheduled';
    // Read after the result (a finished directory is read whole): the run is over, nothing is in flight.
    if (stage && this.result) return;
    if (e.type === 'proposal.ended') {
      this.inFlight.delete(`${e.step}:${e.task}`);
      this.mark('inFlight');
      return;
    }
    // The stages and notices as applyEvent folds them; their other fields are not read there.
    this.applyEvent(e as RunEvent, record.atMs);
  }

  applySlotInterval(interval: SlotInterval): void {
    this.slotIntervals.push(interval);
    if (this.slotIntervals.length > MAX_SLOT_INTERVALS * 1.25) {
      const drop = this.slotIntervals.length - MAX_SLOT_INTERVALS;
      this.slotIntervals.splice(0, drop);
      this.slotIntervalsDropped += drop;
    }
    this.mark('slots');
  }

  applyInspection(record: InspectionRecord): void {
    this.actors.add(record);
    this.actorRecords++;
    this.mark('actors');
  }

  actorTree(): ActorTree | undefined {
    return this.actorRecords > 0 ? this.actors.tree() : undefined;
  }

  /** Tokens and dollars per model from the log's records (every process's calls). */
  modelUsage(): ModelUsage[] {
    return this.usage.rows();
  }

  /** What a candidate's own metric calls cost (its minibatch and valset evaluations), from the log. */
  candidateCost(candidate: Candidate): { costUsd: number; unpriced: number; calls: number; inputTokens: number; outputTokens: number } | undefined {
    return this.costByHash.get(candidateHash(candidate));
  }

  /** The logged reply to a reflection prompt. */
  replyTo(prompt: string): LmReply | undefined {
    return this.replies.get(promptHash(prompt));
  }

  /** Run time now: the run's elapsed when it is over, else the clock's. */
  elapsedMs(): number {
    if (this.result) return this.result.elapsedMs;
    const known = Math.max(0, ...this.candidates.map((c) => c.elapsedMs ?? 0));
    return Math.max(known, this.elapsedNow() ?? 0);
  }

  /**
   * The report's input for the run as it stands: a finished run's own (the report's input when this
   * process wrote it, else its logged result), or a result assembled from what is known so far.
   */
  reportInput(title: string): ReportInput {
    if (this.finishedInput) return this.finishedInput;
    const known = this.candidates.filter((c) => c.valScore !== undefined);
    const shown = this.result ? this.candidates : known.length === this.candidates.length ? this.candidates : this.candidates.slice(0, Math.max(1, firstGap(this.candidates)));
    const elapsed = this.elapsedMs();
    const result: OptimizeResult = this.result ?? {
      candidates: shown.map((c) => c.candidate ?? {}),
      parents: shown.map((c) => c.parents),
      valScores: shown.map((c) => c.valScore ?? 0),
      valSubscores: shown.map((c) => c.valSubscores ?? []),
      bestIndex: this.bestIndex < shown.length ? this.bestIndex : 0,
      bestCandidate: shown[this.bestIndex < shown.length ? this.bestIndex : 0]?.candidate ?? {},
      bestScore: this.bestScore ?? shown[0]?.valScore ?? 0,
      metricCalls: this.metricCalls,
      reflectionCalls: this.reflectionCalls,
      costUsd: this.costUsd,
      discoveryMetricCalls: shown.map((c) => c.metricCalls ?? 0),
      discoveryElapsedMs: shown.map((c) => c.elapsedMs ?? 0),
      stopReason: this.stopReason ?? (this.status === 'running' ? 'still running' : this.status),
      proposals: this.ended,
      elapsedMs: elapsed,
      workerUtilization: utilization(this.slotIntervals, this.workers ?? 1, elapsed),
    };
    return {
      title,
      result,
      workers: this.workers ?? 1,
      schedule: this.schedule ?? { kind: 'batched', parents: 1, perParent: 1 },
      minibatchSize: this.minibatchSize ?? 3,
      ...(this.budget !== undefined ? { budget: this.budget } : {}),
      slotIntervals: this.slotIntervals,
      runStartedAt: this.slotsStartedAt,
      modelUsage: this.modelUsage(),
      observedFrom: 'the run log',
      ...(this.result && this.facts ? { facts: this.facts } : {}),
    };
  }
}

/** The first index with no score yet: a view shows a gapless prefix of the pool. */
function firstGap(candidates: readonly CandidateView[]): number {
  const gap = candidates.findIndex((c) => c.valScore === undefined);
  return gap === -1 ? candidates.length : gap;
}

/** Busy slot time over slots x elapsed, as the result's workerUtilization. */
function utilization(intervals: readonly SlotInterval[], workers: number, elapsedMs: number): number {
  if (elapsedMs <= 0 || intervals.length === 0) return 0;
  const busy = intervals.reduce((n, iv) => n + (iv.end - iv.start), 0);
  return Math.min(1, busy / (workers * elapsedMs));
}
