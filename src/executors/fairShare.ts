// Fair shares of one queue's workers among the runs that send it jobs: start-time fair queueing,
// weighted by metric calls. Each job's BullMQ priority (smaller goes first) is a tag: max(the
// queue's virtual time, where its run's previous job ended), and a job ends its metric calls
// later (one for a job per call, one per example for a batch job), so runs with jobs waiting are
// served in turn, the same number of calls each, whatever the size of their bursts, their jobs
// or their `workers`, and a run that was idle gets no credit for it. The
// virtual time is the tag at the head of the queue; with nothing waiting the tags start over,
// which keeps them far below BullMQ's highest priority (past it, jobs are served in order).
// Tags for the jobs of one turn of the event loop are drawn in one round trip.

/** BullMQ's highest priority number (the lowest priority). */
export const MAX_PRIORITY = 2_097_151;

/** Key name under the queue's prefix (`queue.toKey(name)`): hash of run id -> its last tag. */
export const FAIR_KEY = 'gepa-fair';

/**
 * KEYS: the queue's prioritized set, the fair hash; ARGV: run id, the metric calls of the jobs
 * tagged. Returns the first job's tag (each next one follows its predecessor's calls). BullMQ
 * scores a prioritized job priority x 2^32 + a counter.
 */
export const FAIR_TAGS_SCRIPT = `
local head = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local now
if head[2] then
  now = math.floor(tonumber(head[2]) / 4294967296)
else
  redis.call('DEL', KEYS[2])
  now = 0
end
local last = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0')
local first = math.max(now, last) + 1
redis.call('HSET', KEYS[2], ARGV[1], math.min(first + tonumber(ARGV[2]) - 1, ${MAX_PRIORITY}))
redis.call('PEXPIRE', KEYS[2], 86400000)
return first`;

/** Hands out tags, drawing those asked for in one turn of the event loop together. */
export class FairTags {
  private waiting: Array<{ calls: number; resolve: (tag: number) => void; reject: (error: unknown) => void }> = [];

  /** `draw(calls)` returns the first tag of jobs holding that many metric calls in all (FAIR_TAGS_SCRIPT). */
  constructor(private readonly draw: (calls: number) => Promise<number>) {}

  /** The tag of a job of `calls` metric calls. */
  next(calls = 1): Promise<number> {
    return new Promise((resolve, reject) => {
      if (this.waiting.push({ calls: Math.max(1, calls), resolve, reject }) === 1) setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    const batch = this.waiting;
    this.waiting = [];
    try {
      let tag = await this.draw(batch.reduce((sum, ask) => sum + ask.calls, 0));
      for (const ask of batch) {
        ask.resolve(Math.min(tag, MAX_PRIORITY));
        tag += ask.calls;
      }
    } catch (error) {
      for (const ask of batch) ask.reject(error);
    }
  }
}
