// Worker heartbeats through Redis, both sides of them: a worker process stamps its name in its
// queue's beat set every HEARTBEAT_MS (from a thread of its own: src/worker/workerHeartbeat.ts),
// with Redis's own clock (TIME inside the script, so no host's clock is trusted), and says how
// long its recent gaps between beats were (a process starved of CPU makes them) and how many
// metric calls it runs at once (its --concurrency: the executor sizes batch jobs by it); a run's
// executor reads every worker's age in one round trip. A worker
// whose beat is old is lost (src/executors/lostCalls.ts decides); one stopped cleanly removes
// its entry. Entries older than an hour are dropped by the readers.

/** How often a worker beats. */
export const HEARTBEAT_MS = 100;

/** Key names under the queue's own prefix (`queue.toKey(name)`). */
export const BEAT_KEYS = {
  /** Sorted set: worker name -> Redis time (ms) of its last beat. */
  beats: 'gepa-beats',
  /** Hash: worker name -> its recent gap between beats (ms, GapWindow's). */
  gaps: 'gepa-beat-gaps',
  /** Hash: worker name -> the metric calls it runs at once (its --concurrency). */
  concurrency: 'gepa-beat-concurrency',
} as const;

/** The beat keys under a queue's prefix, in the order every beat script takes them (KEYS[1], [2], [3]). */
export function beatKeys(toKey: (name: string) => string): string[] {
  return [toKey(BEAT_KEYS.beats), toKey(BEAT_KEYS.gaps), toKey(BEAT_KEYS.concurrency)];
}

/** KEYS: beats, gaps, concurrency; ARGV: name, gapMs, concurrency. Returns Redis's time in ms. */
export const BEAT_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[3])
return now`;

/** KEYS: beats, gaps, concurrency; ARGV: name. A worker stopping cleanly is not lost. */
export const FORGET_SCRIPT = `
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
return 1`;

/**
 * KEYS: beats, gaps, concurrency. Returns [now, name, beatMs, gapMs, concurrency, name, ...]
 * (concurrency '0' from a worker that does not say); drops entries an hour old.
 */
export const READ_BEATS_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local old = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now - 3600000)
for _, name in ipairs(old) do
  redis.call('ZREM', KEYS[1], name)
  redis.call('HDEL', KEYS[2], name)
  redis.call('HDEL', KEYS[3], name)
end
local out = { tostring(now) }
local beats = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
for i = 1, #beats, 2 do
  out[#out + 1] = beats[i]
  out[#out + 1] = beats[i + 1]
  out[#out + 1] = redis.call('HGET', KEYS[2], beats[i]) or '0'
  out[#out + 1] = redis.call('HGET', KEYS[3], beats[i]) or '0'
end
return out`;

/** A worker's last sign of life as a reader sees it. */
export interface WorkerBeat {
  /** Since its last beat, on Redis's clock. */
  ageMs: number;
  /** Its recent gap between beats (the third longest of the last minute). */
  gapMs: number;
  /** The metric calls it runs at once; undefined from a worker that does not say (an older version). */
  concurrency?: number;
}

/** What READ_BEATS_SCRIPT returned: Redis's time and each worker's beat. */
export interface BeatReading {
  nowMs: number;
  workers: Map<string, WorkerBeat>;
}

export function parseBeats(reply: unknown): BeatReading {
  const items = (Array.isArray(reply) ? reply : []).map(String);
  const nowMs = Number(items[0] ?? 0);
  const workers = new Map<string, WorkerBeat>();
  for (let i = 1; i + 3 < items.length; i += 4) {
    const concurrency = Number(items[i + 3]);
    workers.set(items[i]!, { ageMs: Math.max(0, nowMs - Number(items[i + 1])), gapMs: Number(items[i + 2]) || 0, ...(Number.isInteger(concurrency) && concurrency >= 1 ? { concurrency } : {}) });
  }
  return { nowMs, workers };
}
