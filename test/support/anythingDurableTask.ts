// A durable single-task optimizeAnything run for the kill -9 test: batched 2 x 2 on 4 workers, an
// artifact that must list twelve words, each evaluation taking a few real milliseconds (so that
// kills land mid-run), `onCall` told whenever the evaluator really runs.
import type { OptimizeAnythingOptions } from '../../src/index.js';
import { appendingReflection } from './anythingTask.js';

export const TWELVE = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta', 'iota', 'kappa', 'lambda', 'mu'];
export const ANYTHING_WORKERS = 4;

export function anythingDurableOptions(runDir: string, onCall: () => void = () => {}): OptimizeAnythingOptions<string, undefined> {
  return {
    seedCandidate: 'words:',
    evaluator: async (artifact) => {
      onCall();
      await new Promise((resolve) => setTimeout(resolve, 8));
      const missing = TWELVE.filter((w) => !artifact.split(/\s+/).includes(w));
      return { score: (TWELVE.length - missing.length) / TWELVE.length, sideInfo: missing.length > 0 ? { Next: missing[0] } : {} };
    },
    objective: 'List the twelve words.',
    reflectionLm: appendingReflection(),
    runIdentity: { reflectionLm: 'appending' },
    runDir,
    // Four tasks a step on one parent (one front in single-task search): they share one traced
    // parent evaluation in flight, and so must a resumed run.
    schedule: { kind: 'batched', parents: 2, perParent: 2 },
    workers: ANYTHING_WORKERS,
    maxMetricCalls: 40,
  };
}
