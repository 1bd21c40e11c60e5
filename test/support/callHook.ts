// An adapter that tells `onCall` each time a metric call starts, before it runs: the tests count
// what was paid with it, or stop a run a set number of calls in.
import type { Adapter } from '../../src/gepa/core/adapter.js';

export function withCallHook<Example>(adapter: Adapter<Example>, onCall: () => void): Adapter<Example> {
  return {
    ...adapter,
    evaluate: (candidate, example, ctx) => {
      onCall();
      return adapter.evaluate(candidate, example, ctx);
    },
  };
}
