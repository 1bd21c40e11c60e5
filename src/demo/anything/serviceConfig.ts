// The service-config task's artifact and its load test: a `key = value` config for a simulated
// request-serving service (workers, queue, cache, batching, timeout, retries), parsed strictly as
// a real service would (an unknown key or a bad value refuses to start), then run against the
// seed's hidden workload. The load test reports what an operator's harness reports: throughput,
// drops, latency against the SLO, errors, memory, cache hit rate, utilization. No randomness.
import { Rng } from '../../gepa/core/rng.js';
import { combineHashes, hashString } from '../hash32.js';

export const CONFIG_KEYS = ['workers', 'queue_size', 'cache_mb', 'batch_size', 'timeout_ms', 'retries'] as const;
export type ConfigKey = (typeof CONFIG_KEYS)[number];
export type ServiceConfig = Record<ConfigKey, number>;

/** Inclusive ranges a value must lie in for the service to start. */
export const CONFIG_RANGES: Record<ConfigKey, readonly [number, number]> = {
  workers: [1, 64],
  queue_size: [0, 100_000],
  cache_mb: [0, 65_536],
  batch_size: [1, 64],
  timeout_ms: [10, 120_000],
  retries: [0, 10],
};

/** What the service runs with when a key is left out. */
const DEFAULTS: ServiceConfig = { workers: 1, queue_size: 100, cache_mb: 0, batch_size: 1, timeout_ms: 1000, retries: 0 };

export const SERVICE_SEED_CONFIG = ['workers = 4', 'queue_size = 50', 'cache_mb = 64', 'batch_size = 1', 'timeout_ms = 200', 'retries = 0'].join('\n');

/** The traffic and machine the seed draws; the evaluator never shows it whole, only through measurements. */
export interface Workload {
  /** Offered load, requests per second. */
  rate: number;
  /** One request's service time on a worker, ms (a cache hit takes CACHE_HIT_MS). */
  serviceMs: number;
  memoryLimitMb: number;
  workerMb: number;
  workingSetMb: number;
  sloP99Ms: number;
  /** Share of upstream calls that fail transiently (a retry may succeed). */
  upstreamFailure: number;
}

export function drawWorkload(seed: number): Workload {
  const rng = new Rng(combineHashes(hashString('service-config'), seed >>> 0));
  const between = (lo: number, hi: number, step = 1) => lo + step * Math.floor(rng.next() * ((hi - lo) / step + 1));
  return {
    rate: between(600, 1600, 50),
    serviceMs: between(18, 40),
    memoryLimitMb: between(1536, 4096, 256),
    workerMb: between(120, 240, 10),
    workingSetMb: between(600, 2400, 100),
    sloP99Ms: between(200, 500, 50),
    upstreamFailure: between(10, 50) / 1000,
  };
}

export type ParsedConfig = { ok: true; config: ServiceConfig } | { ok: false; error: string };

const LINE = /^([A-Za-z_][\w.-]*)\s*=\s*(\S+)$/;

/** Parses a config as the service does: `key = value` lines, `#` comments; the first problem refuses the whole file. */
export function parseServiceConfig(text: string): ParsedConfig {
  const config: ServiceConfig = { ...DEFAULTS };
  const seen = new Set<string>();
  const lines = text.split('\n');
  for (let n = 0; n < lines.length; n++) {
    const line = (lines[n] as string).replace(/#.*$/, '').trim();
    if (line === '') continue;
    const at = `line ${n + 1}`;
    const match = LINE.exec(line);
    if (!match) return { ok: false, error: `${at}: expected 'key = value', got '${line}'` };
    const [, key, raw] = match as unknown as [string, string, string];
    if (!(CONFIG_KEYS as readonly string[]).includes(key)) return { ok: false, error: `${at}: unknown key '${key}' (known: ${CONFIG_KEYS.join(', ')})` };
    if (seen.has(key)) return { ok: false, error: `${at}: '${key}' is set twice` };
    seen.add(key);
    const value = Number(raw);
    const [lo, hi] = CONFIG_RANGES[key as ConfigKey];
    if (!Number.isInteger(value) || value < lo || value > hi) return { ok: false, error: `${at}: '${key}' must be an integer in [${lo}, ${hi}], got '${raw}'` };
    config[key as ConfigKey] = value;
  }
  return { ok: true, config };
}

export interface LoadTestResult {
  score: number;
  sideInfo: Record<string, string>;
}

const CACHE_HIT_MS = 2;
/** The price of a worker, as a share of the score: capacity is not free. */
const WORKER_COST = 0.005;
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

/** Runs the config against the workload: a score in [0, 1] and the harness's report. */
export function runLoadTest(text: string, workload: Workload): LoadTestResult {
  const parsed = parseServiceConfig(text);
  if (!parsed.ok) return { score: 0, sideInfo: { status: 'refused to start', error: `config error: ${parsed.error}` } };
  const c = parsed.config;
  const w = workload;

  const queueMb = Math.ceil((c.queue_size * 64) / 1024); // 64 KB per queued request
  const batchMb = c.workers * (c.batch_size - 1) * 6;
  const memoryMb = c.workers * w.workerMb + c.cache_mb + queueMb + batchMb;
  const memoryLine = `${memoryMb} MB of ${w.memoryLimitMb} MB: ${c.workers} workers x ${w.workerMb} MB, cache ${c.cache_mb} MB, queue ${queueMb} MB${batchMb > 0 ? `, batch buffers ${batchMb} MB` : ''}`;
  if (memoryMb > w.memoryLimitMb) {
    return { score: 0, sideInfo: { status: 'OOMKilled', error: 'the service was killed for exceeding its memory limit during warm-up', memory: memoryLine } };
  }

  // The cache serves hits fast; its hit rate grows with its share of the working set.
  const hitRate = 0.9 * Math.min(1, c.cache_mb / w.workingSetMb) ** 0.6;
  const missMs = w.serviceMs * (1 + 0.12 * (c.batch_size - 1));
  const perRequestMs = hitRate * CACHE_HIT_MS + (1 - hitRate) * missMs / c.batch_size;
  // Retries add load: every failed attempt is sent again, up to `retries` times.
  const f = w.upstreamFailure;
  const attempts = Array.from({ length: c.retries + 1 }, (_, k) => f ** k).reduce((a, b) => a + b, 0);
  const failed = f ** (c.retries + 1);
  const capacity = (c.workers * 1000) / perRequestMs;
  const offered = w.rate * attempts;
  const rho = offered / capacity;

  const baseMs = hitRate * CACHE_HIT_MS + (1 - hitRate) * missMs + (c.batch_size - 1) * (500 / (w.rate / c.workers)) * 0.5;
  // Queueing delay: grows as utilization nears 1; a full queue drops what it cannot hold.
  const busy = Math.min(rho, 0.995);
  const meanWaitMs = (baseMs * busy) / (1 - busy) / Math.sqrt(c.workers);
  const queueCapMs = (c.queue_size / Math.max(capacity, 1)) * 1000;
  const waitMs = Math.min(meanWaitMs, queueCapMs);
  const overflow = rho > 1 ? 1 - 1 / rho : 0;
  const burstDrop = c.queue_size === 0 ? busy : busy ** (1 + c.queue_size / (2 * c.workers)) * 0.4;
  const dropped = Math.min(1, overflow + (1 - overflow) * burstDrop);
  const p50 = baseMs + waitMs * 0.7;
  const p99 = baseMs + waitMs * 4.6;
  // Latency tail: exponential beyond the base; the timeout cuts it.
  const timedOut = c.timeout_ms <= baseMs ? 1 : waitMs <= 0 ? 0 : Math.min(1, Math.exp(-(c.timeout_ms - baseMs) / waitMs));
  const served = w.rate * (1 - dropped);
  const good = served * (1 - timedOut) * (1 - failed);
  const effectiveP99 = Math.min(p99, c.timeout_ms);
  const latencyFactor = effectiveP99 <= w.sloP99Ms ? 1 : w.sloP99Ms / effectiveP99;
  const score = (good / w.rate) * latencyFactor * (1 - WORKER_COST * c.workers);

  return {
    score: Math.round(score * 10_000) / 10_000,
    sideInfo: {
      status: 'ok',
      load_test: `offered ${w.rate} req/s for 60 s; served ${Math.round(served)} req/s, ${Math.round(good)} req/s good; dropped ${pct(dropped)}${dropped < 0.0005 ? '' : overflow > 0 ? ' (over capacity)' : ' (queue full in bursts)'}`,
      latency: `p50 ${Math.round(p50)} ms, p99 ${Math.round(p99)} ms (SLO p99 ${w.sloP99Ms} ms)`,
      errors: `timeouts ${pct(timedOut)} (timeout_ms ${c.timeout_ms}); upstream failures after retries ${pct(failed)} (retries ${c.retries}, upstream failure rate ${pct(f)})`,
      memory: memoryLine,
      cache: `hit rate ${pct(hitRate)} (working set about ${w.workingSetMb} MB)`,
      utilization: `workers busy ${pct(Math.min(rho, 1))}`,
      cost: `${c.workers} workers, each costing ${pct(WORKER_COST)} of the score`,
    },
  };
}
