// The run events about one task of a step (its step and task numbers) that more than one actor
// tells: a proposer tells them for its proposal, and the optimizer tells the same ones for an
// async proposal whose parent evaluation it asked for itself (no proposer exists for it yet).
// One builder each, so both tell the same event.
import type { Evaluation } from '../core/adapter.js';
import type { RunEvent } from '../core/runEvent.js';

/** Which task an event is about. */
export interface TaskOf {
  step: number;
  task: number;
}

/** An evaluation of the parent, the child or the valset was asked for. */
export const evaluationStartedEvent = (target: 'parent' | 'child' | 'valset', task: TaskOf): RunEvent => ({ type: 'evaluation.started', target, ...task });

/** The parent's evaluation said skip: why, and the parent's scores. */
export const parentSkippedEvent = (reason: string, evaluations: readonly Evaluation[], task: TaskOf): RunEvent => ({ type: 'evaluation.skipped', reason, scores: evaluations.map((e) => e.score), ...task });

/** A request this task made failed: an error event that names the task. */
export const taskErrorEvent = (task: TaskOf, what: string): RunEvent => ({ type: 'error', message: `task ${task.step}/${task.task}: ${what}` });
