// A durable single-task optimizeAnything run for the kill -9 test: batched (1 x 1) on 4 workers, an
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
    // One task a step: with several tasks on one parent, a step shares one traced parent evaluation
    // in flight, and a resumed run replays each task's from its own logged record (see the report).
    schedule: { kind: 'batched' },
    workers: ANYTHING_WORKERS,
    maxMetricCalls: 30,
  };
}
