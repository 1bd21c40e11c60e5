// Adapters for the BullMQ throughput benchmark, loaded by worker processes: `sleep50` waits
// 50 ms per metric call (latency-bound work, like a remote model call), `instant` returns at
// once (so the queue's own cost per job shows).
import type { Adapter } from '../../src/gepa/core/adapter.js';

const sleepFor = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });

export const sleep50: Adapter<unknown> = {
  async evaluate(_candidate, _example, ctx) {
    await sleepFor(50, ctx.signal);
    return { score: 1 };
  },
};

export const instant: Adapter<unknown> = {
  async evaluate() {
    return { score: 1 };
  },
};
