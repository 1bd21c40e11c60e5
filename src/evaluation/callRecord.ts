// A call as telemetry sees it: for whom it ran (a proposal, or the run's own seed) and what it
// was, timed on the run's clock. The evaluation service writes one per call that ran (replays
// and cache hits did not); telemetry/ reads them. Types only.
import type { LmReply } from '../gepa/core/languageModel.js';
import type { WorkKind } from './workerSlots.js';

/** Whose work a call is: a proposal's (its step and task), or the run's own (the seed) when absent. */
export interface CallOrigin {
  step: number;
  task: number;
}

/** One call that ran (replays and cache hits did not), for telemetry: what, for whom, when on the run's clock. */
export type CallRecord =
  | { channel: 'metric'; kind: WorkKind; origin?: CallOrigin; startMs: number; endMs: number; exampleId: number; score: number; failed: boolean; costUsd: number }
  | {
      channel: 'lm';
      kind: 'reflection' | 'propose';
      origin?: CallOrigin;
      startMs: number;
      endMs: number;
      model?: string;
      usage?: LmReply['usage'];
      costUsd: number;
      /** Set when the call failed. */
      error?: string;
    };
