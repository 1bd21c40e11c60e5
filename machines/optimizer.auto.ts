// Schedule 'auto' in the optimizer: what it observes (the seed's and the first proposals'
// latencies, how proposals end) folded into its watch, and the shape it decides at each
// milestone (src/runtimeModel/autoSchedule.ts), taken as a decision on the async run's logged
// path: a fresh run logs it with its reason and announces it ('schedule.decided'); a resumed run
// on its logged path takes the logged shape at the same point instead of deciding again (its
// latencies, replayed from the log, say nothing), so it asks for the calls the log holds.
import { autoDecision, autoShapeId, autoShapeOfId, type AutoShape } from '../src/runtimeModel/autoSchedule.js';
import { autoMilestone, autoViewOf, keepsShape, type AutoWatch } from '../src/runtimeModel/autoWatch.js';
import { expectedDecision, pastLoggedPath, type LoggedDecision } from '../src/storage/resumeOrder.js';
import type { RunEvent } from '../src/gepa/core/runEvent.js';
import type { ScheduleDecisionRecord } from '../src/gepa/core/optimizeResult.js';
import { preparedOf, settingsOf } from './runWiring.js';
import { elapsedMs, type OptimizerContext } from './optimizer.setup.js';

/** The watch changed by `f` (a domain function of runtimeModel/autoWatch.ts), in place; nothing when the run is not 'auto'. Named actions only. */
export function observe(context: OptimizerContext, f: (watch: AutoWatch) => AutoWatch): void {
  if (context.seen.auto) context.seen.auto = f(context.seen.auto);
}

/** A shape decided and taken: its run event, and the record to log when it is not the logged path's. */
export interface AutoStep {
  event?: RunEvent;
  logged?: LoggedDecision;
}

function taken(context: OptimizerContext, watch: AutoWatch, shape: AutoShape, reason: string): AutoStep {
  const logged = context.walk.take({ kind: 'shape', id: autoShapeId(shape), reason });
  const metricCalls = context.run.ledger.spentCalls;
  const record: ScheduleDecisionRecord = { shape, reason, atMetricCalls: metricCalls, atElapsedMs: elapsedMs(context) };
  context.run.reshape({ kind: 'async', ...shape });
  context.seen.auto = { ...watch, decisions: [...watch.decisions, record] };
  return { event: { type: 'schedule.decided', ...shape, reason, metricCalls }, ...(logged ? { logged } : {}) };
}

/**
 * Before a launch (the launch action only): the logged shape when the resumed run's path holds
 * one next; else, past the logged path and at a new milestone, auto's decision (taken even when it
 * keeps the shape the first time, so every run records its first choice; after that only when it
 * changes K by AUTO_MIN_CHANGE or more, keepsShape), kept in the run's shape, the walk and the
 * watch. Null when nothing is decided.
 */
export function autoStep(context: OptimizerContext): AutoStep | null {
  const watch = context.seen.auto;
  if (!watch) return null;
  const { settings, table } = preparedOf(context);
  const milestone = autoMilestone(watch);
  const expected = expectedDecision(context.walk.position);
  if (expected?.kind === 'shape') {
    const shape = autoShapeOfId(expected.id);
    if (shape) return taken(context, { ...watch, decidedAt: milestone }, shape, expected.reason ?? 'as the logged run decided');
  }
  if (!pastLoggedPath(context.walk.position)) return null;
  if (milestone <= watch.decidedAt) return null;
  const view = autoViewOf(watch, { workers: settings.workers, budget: settings.maxMetricCalls, valsetSize: table.valIds.length, minibatchSize: settings.minibatchSize, speculate: settings.schedule.kind === 'async' ? settings.schedule.speculate : 'none', combines: settings.schedule.kind === 'async' && settings.schedule.combinesFailures === true });
  const decision = autoDecision(view);
  const next = { ...watch, decidedAt: milestone };
  if (watch.decisions.length > 0 && keepsShape(decision.shape, context.run.shape as AutoShape)) {
    context.seen.auto = next;
    return {};
  }
  return taken(context, next, decision.shape, decision.reason);
}

/** The run is 'auto' (its settings resolved it to async with `auto`). */
export const isAuto = (context: OptimizerContext): boolean => {
  const { schedule } = settingsOf(context);
  return schedule.kind === 'async' && schedule.auto === true;
};
