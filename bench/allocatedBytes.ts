// The bytes a piece of work allocates, by V8's sampling heap profiler with the collected objects
// counted: unlike CPU time, a figure that does not move with the machine's load (the garbage
// collector's cost follows it). Sampled every 2 KB on average: within ~1% over hundreds of MB.
import { Session } from 'node:inspector/promises';

interface SampleNode {
  selfSize: number;
  children: readonly SampleNode[];
}

const total = (node: SampleNode): number => node.children.reduce((sum, child) => sum + total(child), node.selfSize);

/** Runs `work` under the sampler; its answer and the bytes it allocated. */
export async function allocatedBytes<T>(work: () => Promise<T>): Promise<{ value: T; bytes: number }> {
  const session = new Session();
  session.connect();
  try {
    await session.post('HeapProfiler.startSampling', { samplingInterval: 2048, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true } as never);
    const value = await work();
    const { profile } = await session.post('HeapProfiler.stopSampling');
    return { value, bytes: total(profile.head as unknown as SampleNode) };
  } finally {
    session.disconnect();
  }
}
