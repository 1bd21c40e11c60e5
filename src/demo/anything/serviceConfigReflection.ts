// The simulated reflection LM of the service-config task: reads the current config (the first
// fenced block of the prompt) and the load test's report in the side information, finds what an
// operator would fix first (a config error, an OOM kill, overload, drops, timeouts, latency over
// the SLO, upstream failures, a cold cache, idle workers), and edits like a real LM would:
// usually the top problem by a plausible factor, sometimes another one, two at once, a misjudged
// knob, or a slip that breaks the syntax. Its draws come from a hash of (prompt, task seed).
import type { Rng } from '../../gepa/core/rng.js';
import type { LanguageModel } from '../../gepa/core/languageModel.js';
import { createSimulatedReflectionModel, type DemoReflectionModelOptions } from '../demoReflectionModel.js';
import type { ProposedEdit } from '../reflectionEdits.js';
import { readReflectionPrompt } from '../reflectionPromptReader.js';
import { CONFIG_KEYS, CONFIG_RANGES, SERVICE_SEED_CONFIG, type ConfigKey } from './serviceConfig.js';

/** Cumulative shares of the edit kinds: the top problem, another one, both, a misjudged knob; the rest, a slip. */
const SHARES = { top: 0.6, other: 0.75, both: 0.85, misjudged: 0.93 } as const;

/** The numbers the load test's report shows (absent when the report does not say). */
export interface LoadReport {
  configError?: { line: number; message: string };
  oom: boolean;
  memoryMb?: number;
  memoryLimitMb?: number;
  cacheMb?: number;
  droppedPct?: number;
  overCapacity: boolean;
  p99Ms?: number;
  sloMs?: number;
  timeoutPct?: number;
  failedPct?: number;
  hitRatePct?: number;
  busyPct?: number;
}

const num = (pattern: RegExp, text: string): number | undefined => {
  const m = pattern.exec(text);
  return m ? Number(m[1]) : undefined;
};

export function readLoadReport(text: string): LoadReport {
  const error = /config error: line (\d+): ([^\n]*)/.exec(text);
  const memory = /(\d+) MB of (\d+) MB/.exec(text);
  return {
    configError: error ? { line: Number(error[1]), message: error[2] as string } : undefined,
    oom: /OOMKilled/.test(text),
    memoryMb: memory ? Number(memory[1]) : undefined,
    memoryLimitMb: memory ? Number(memory[2]) : undefined,
    cacheMb: num(/cache (\d+) MB/, text),
    droppedPct: num(/dropped ([\d.]+)%/, text),
    overCapacity: /over capacity/.test(text),
    p99Ms: num(/p99 (\d+) ms \(SLO/, text),
    sloMs: num(/SLO p99 (\d+) ms/, text),
    timeoutPct: num(/timeouts ([\d.]+)%/, text),
    failedPct: num(/upstream failures after retries ([\d.]+)%/, text),
    hitRatePct: num(/hit rate ([\d.]+)%/, text),
    busyPct: num(/workers busy ([\d.]+)%/, text),
  };
}

type Values = Map<string, string>;

/** The config's `key = value` lines as the LM reads them (keys it does not know included). */
function valuesOf(text: string): Values {
  const values: Values = new Map();
  for (const line of text.split('\n')) {
    const m = /^\s*([A-Za-z_][\w.-]*)\s*[=:]\s*(\S+)/.exec(line);
    if (m) values.set(m[1] as string, m[2] as string);
  }
  return values;
}

const current = (values: Values, key: ConfigKey, fallback: number) => {
  const v = Number(values.get(key));
  return Number.isFinite(v) ? v : fallback;
};

function clampTo(key: ConfigKey, value: number): number {
  const [lo, hi] = CONFIG_RANGES[key];
  return Math.min(hi, Math.max(lo, Math.round(value)));
}

/** Writes `key = value` in place of the key's line, or appends it. */
function setValue(text: string, key: string, value: number | string): string {
  const line = new RegExp(`^(\\s*)${key}\\s*[=:].*$`, 'm');
  if (line.test(text)) return text.replace(line, `$1${key} = ${value}`);
  return `${text.trimEnd()}\n${key} = ${value}`.trimStart();
}

interface Change {
  key: ConfigKey;
  value: number;
  why: string;
}

/** Problems the report shows, most pressing first, each with the change that addresses it. */
function problems(report: LoadReport, values: Values, rng: Rng): Change[] {
  const out: Change[] = [];
  const get = (key: ConfigKey, fallback: number) => current(values, key, fallback);
  const factor = (lo: number, hi: number) => lo + (hi - lo) * rng.next();
  const workers = get('workers', 1);
  const cache = get('cache_mb', 0);
  const headroom = report.memoryMb !== undefined && report.memoryLimitMb !== undefined ? 1 - report.memoryMb / report.memoryLimitMb : 0;
  if (report.oom && report.memoryMb !== undefined && report.memoryLimitMb !== undefined) {
    const excess = report.memoryMb - report.memoryLimitMb * 0.85;
    if (cache > excess && cache > report.memoryMb * 0.25) out.push({ key: 'cache_mb', value: clampTo('cache_mb', cache - excess * factor(1, 1.5)), why: 'the service was OOM-killed, so I shrank the cache' });
    else out.push({ key: 'workers', value: clampTo('workers', workers * factor(0.5, 0.8)), why: 'the service was OOM-killed, so I run fewer workers' });
  }
  if (report.overCapacity) {
    const options: Change[] = [
      { key: 'workers', value: clampTo('workers', Math.max(workers + 1, workers * factor(1.4, 2))), why: 'the service is over capacity, so I added workers' },
      { key: 'batch_size', value: clampTo('batch_size', get('batch_size', 1) * 2), why: 'the service is over capacity, so I batch more requests per worker pass' },
    ];
    if ((report.hitRatePct ?? 100) < 60 && headroom > 0.3) options.push({ key: 'cache_mb', value: clampTo('cache_mb', Math.max(128, cache * factor(2, 4))), why: 'the service is over capacity and the cache is cold, so I grew the cache' });
    out.push(rng.pick(options));
  } else if ((report.droppedPct ?? 0) > 0.5) {
    out.push({ key: 'queue_size', value: clampTo('queue_size', Math.max(100, get('queue_size', 100) * factor(2, 4))), why: 'requests are dropped in bursts, so I made the queue longer' });
  }
  if ((report.timeoutPct ?? 0) > 1 && report.p99Ms !== undefined) {
    out.push({ key: 'timeout_ms', value: clampTo('timeout_ms', report.p99Ms * factor(1.2, 2)), why: 'requests time out below the p99, so I raised the timeout' });
  }
  if (report.p99Ms !== undefined && report.sloMs !== undefined && report.p99Ms > report.sloMs && !report.overCapacity) {
    const batch = get('batch_size', 1);
    if ((report.busyPct ?? 0) > 80) out.push({ key: 'workers', value: clampTo('workers', workers + 1 + rng.int(2)), why: 'p99 is over the SLO with busy workers, so I added workers' });
    else if (batch > 1) out.push({ key: 'batch_size', value: clampTo('batch_size', batch / 2), why: 'p99 is over the SLO, so I batch less' });
    else out.push({ key: 'cache_mb', value: clampTo('cache_mb', Math.max(128, cache * 2)), why: 'p99 is over the SLO, so I grew the cache' });
  }
  if ((report.failedPct ?? 0) > 0.5) out.push({ key: 'retries', value: clampTo('retries', get('retries', 0) + 1), why: 'upstream failures reach clients, so I retry once more' });
  if ((report.hitRatePct ?? 100) < 50 && headroom > 0.3) out.push({ key: 'cache_mb', value: clampTo('cache_mb', Math.max(128, cache * factor(1.5, 3))), why: 'the cache hit rate is low and memory is free, so I grew the cache' });
  if ((report.busyPct ?? 100) < 50 && workers > 1) out.push({ key: 'workers', value: workers - 1, why: 'workers are mostly idle, so I removed one' });
  return out;
}

/** The nearest known key to a misspelled one (the LM recognizes the typo), or undefined. */
function nearestKey(key: string): ConfigKey | undefined {
  const letters = (s: string) => [...s].sort().join('');
  return CONFIG_KEYS.find((k) => letters(k) === letters(key) || k.startsWith(key.slice(0, 4)));
}

function fixConfigError(text: string, message: string, rng: Rng): string {
  const unknown = /unknown key '([^']+)'/.exec(message);
  if (unknown) {
    const key = unknown[1] as string;
    const known = nearestKey(key);
    const line = new RegExp(`^\\s*${key}\\s*[=:]`, 'm');
    return known ? text.replace(line, `${known} =`) : text.replace(new RegExp(`^\\s*${key}\\s*[=:].*\\n?`, 'm'), '');
  }
  const bad = /'([a-z_]+)' must be an integer in \[(\d+), (\d+)\], got '([^']*)'/.exec(message);
  if (bad) {
    const key = bad[1] as ConfigKey;
    const value = Number.parseFloat(bad[4] as string);
    return setValue(text, key, clampTo(key, Number.isFinite(value) ? value : Number(bad[2]) + rng.int(3)));
  }
  const twice = /'([a-z_]+)' is set twice/.exec(message);
  if (twice) return text.replace(new RegExp(`^\\s*${twice[1]}\\s*[=:].*\\n?`, 'm'), '');
  // A syntax problem: every line back to `key = value`.
  return text.replace(/^(\s*[A-Za-z_][\w.-]*)\s*:\s*/gm, '$1 = ');
}

/** A slip a real LM makes now and then: YAML's colon, or a key misspelled. */
function slip(text: string, rng: Rng): string {
  const key = rng.pick(CONFIG_KEYS);
  const line = new RegExp(`^(\\s*)${key}\\s*=\\s*`, 'm');
  if (!line.test(text)) return text;
  if (rng.next() < 0.5) return text.replace(line, `$1${key}: `);
  return text.replace(line, `$1${key.replace('_', '')} = `);
}

export function proposeConfigEdit(prompt: string, rng: Rng): ProposedEdit {
  const request = readReflectionPrompt(prompt);
  const text = request.currentText;
  if (valuesOf(text).size === 0) return { text: SERVICE_SEED_CONFIG, note: 'here is a conservative starting configuration' };
  // Everything after the current text: the side information, however the prompt renders it.
  const report = readLoadReport(prompt.slice(prompt.indexOf(text) + text.length));
  if (report.configError) return { text: fixConfigError(text, report.configError.message, rng), note: 'the service refused the config, so I fixed the line it named' };
  const values = valuesOf(text);
  const found = problems(report, values, rng);
  const apply = (out: string, change: Change) => setValue(out, change.key, change.value);
  const r = rng.next();
  const [top, second] = found;
  if (top && r < SHARES.top) return { text: apply(text, top), note: top.why };
  if (second && r < SHARES.other) return { text: apply(text, second), note: second.why };
  if (top && second && r < SHARES.both) return { text: apply(apply(text, top), second), note: `${top.why}; also ${second.why.replace(/^the /, 'the ')}` };
  if (r < SHARES.misjudged || !top) {
    const key = rng.pick(CONFIG_KEYS);
    const value = clampTo(key, Math.max(1, current(values, key, 1)) * (rng.next() < 0.5 ? 0.5 : 2));
    return { text: setValue(text, key, value), note: `I think ${key} is the bottleneck, so I changed it` };
  }
  return { text: slip(apply(text, top), rng), note: top.why };
}

export function createServiceConfigReflectionModel(options: DemoReflectionModelOptions): LanguageModel {
  return createSimulatedReflectionModel(options, proposeConfigEdit);
}
