// Resuming an async run in its logged order. An async run's decisions (verdicts, folds) depend on
// the order in which results arrive, so the journal logs them, and a resumed run takes them in
// the logged order: that way it asks for exactly the calls the log holds and pays for none twice.
// How far the run has walked the logged path is a plain value (ResumePosition) the optimizer
// keeps in its state; these pure functions answer its questions and say what to log.
import type { ResumeWalk, ScheduleDecision } from '../gepa/core/workJournal.js';

/** An async run's walk along the path earlier processes logged. */
export interface ResumePosition {
  /** The logged path (empty for a fresh run). */
  path: readonly ScheduleDecision[];
  /** Decisions taken so far in this run, on the path or off it. */
  taken: number;
  /** The run took a decision the path did not hold: from then on it writes the path. */
  left: boolean;
}

/** A decision to append to the log: the run's `n`-th (counted from 0). */
export type LoggedDecision = ScheduleDecision & { n: number };

/** The walk's start: only an async run follows a logged path (a batched run's order is its seed's). */
export function startResume(path: readonly ScheduleDecision[] | undefined, async: boolean): ResumePosition | undefined {
  return async ? { path: path ?? [], taken: 0, left: false } : undefined;
}

/** The next decision the path holds, or undefined once the run is past it (or not following one). */
export function expectedDecision(resume: ResumePosition | undefined): ScheduleDecision | undefined {
  return resume === undefined || resume.left ? undefined : resume.path[resume.taken];
}

/** Every logged decision is taken, or the run left the path: logged work not replayed is held against the budgets. */
export function pastLoggedPath(resume: ResumePosition | undefined): boolean {
  return resume !== undefined && (resume.left || resume.taken >= resume.path.length);
}

/** How far the run has walked its path, as the journal's heldWork reads it (a batched run: none taken, not past it). */
export function resumeWalk(resume: ResumePosition | undefined): ResumeWalk {
  return { pastLoggedPath: pastLoggedPath(resume), taken: resume?.taken ?? 0 };
}

/**
 * A report from a proposer whose turn on the logged path has not come (another proposal in
 * flight comes first) waits. A report from the proposal whose turn it is, or when that proposal
 * is not in flight (the run left the path), is taken at once.
 */
export function outOfTurn(resume: ResumePosition | undefined, inFlight: Readonly<Record<string, unknown>>, reportId: string): boolean {
  const expected = expectedDecision(resume);
  return expected !== undefined && expected.id !== reportId && inFlight[expected.id] !== undefined;
}

/**
 * A decision taken: the walk one further, and the record to log when the decision is not the
 * path's (the run leaves the path there, or is past it already).
 */
export function takeDecision(resume: ResumePosition | undefined, decision: ScheduleDecision): { resume: ResumePosition | undefined; logged?: LoggedDecision } {
  if (resume === undefined) return { resume };
  const expected = expectedDecision(resume);
  // Literals, not spreads of the position: every decision of an async run passes here.
  if (expected && expected.kind === decision.kind && expected.id === decision.id) return { resume: { path: resume.path, taken: resume.taken + 1, left: resume.left } };
  // Object.assign, not `{ ...decision, n }`: on Node 20's V8 a literal that starts with a spread
  // and adds a key its source lacks takes a slow path (~1 us; machines/README.md, "Decisions").
  return { resume: { path: resume.path, taken: resume.taken + 1, left: true }, logged: Object.assign({}, decision, { n: resume.taken }) };
}

/**
 * The walk of a run's logged path held by reference for the run's life (the optimizer's context
 * holds one): its position, moved on by each decision taken, and the reports that came before
 * their turn, kept until it comes. Each method is one of the pure functions above over the
 * position it holds; JSON gives the position, the reports and whether it logs as plain values.
 */
export class PathWalk<Report> {
  constructor(
    /** Undefined for a batched run, which follows no logged path. */
    public position: ResumePosition | undefined,
    /** Reports that came before their turn on the logged path. */
    public deferred: Report[] = [],
    /**
     * The run has a log of decisions to write to (its journal records them). Without one, `take`
     * hands back no record, so the optimizer enqueues no action to log it: a fresh run leaves
     * the (empty) path at its first decision and would log every one, ~1.2 a proposal.
     */
    private readonly logs = true,
  ) {}

  /** A decision taken: the walk one further; the record to log when the decision is not the path's and the run logs decisions. */
  take(decision: ScheduleDecision): LoggedDecision | undefined {
    const taken = takeDecision(this.position, decision);
    this.position = taken.resume;
    return this.logs ? taken.logged : undefined;
  }

  /** Whether a report from `reportId` waits for its turn (outOfTurn). */
  outOfTurn(inFlight: Readonly<Record<string, unknown>>, reportId: string): boolean {
    return outOfTurn(this.position, inFlight, reportId);
  }

  /** How far the run has walked its path, as the journal's heldWork reads it. */
  walk(): ResumeWalk {
    return resumeWalk(this.position);
  }

  /** A report kept until its turn. */
  defer(report: Report): void {
    this.deferred.push(report);
  }

  /** The reports kept so far, handed back to be looked at again (the list is emptied). */
  takeDeferred(): Report[] {
    const reports = this.deferred;
    if (reports.length > 0) this.deferred = [];
    return reports;
  }

  toJSON(): { position?: ResumePosition; deferred: Report[]; logs: boolean } {
    return { ...(this.position === undefined ? {} : { position: this.position }), deferred: this.deferred, logs: this.logs };
  }
}
