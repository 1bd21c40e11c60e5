// The run config's `stopWhen`: the built-in stoppers by name, in JSON, as optimize() takes them as
// functions: `[{ "scoreThreshold": 0.9 }, { "timeout": "10m" }, { "noImprovement": 20 },
// { "file": "STOP" }, { "maxCandidates": 50 }]`; each entry names one stopper and its argument,
// `any` and `all` a list of entries. A name or an argument that cannot be one is refused naming
// its place and the names allowed, before any call.
import { resolve } from 'node:path';
import { stoppers } from '../run/stoppers.js';
import type { Stopper } from '../gepa/strategies/stoppers.js';
import { notOneOf } from '../errors/allowedValues.js';

/** A duration: milliseconds, or a number with a unit: "500ms", "30s", "10m", "2h", "1d". */
const DURATION = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Milliseconds of a duration ("10m", 600000), or undefined when it is none. */
export function parseDuration(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value > 0 ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const match = DURATION.exec(value.trim());
  const ms = match ? Number(match[1]) * (UNIT_MS[match[2] as string] as number) : NaN;
  return ms > 0 ? ms : undefined;
}

const isPositiveInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v > 0;
const isPositive = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v > 0;

type Read = { stopper: Stopper } | { problem: string } | { problems: string[] };

/** Per name: the stopper its argument makes (`base`: the config's folder, for `file`), or what the argument must be. */
const BUILT_INS: Record<string, (value: unknown, base: string, path: string) => Read> = {
  scoreThreshold: (v) => (typeof v === 'number' && Number.isFinite(v) ? { stopper: stoppers.scoreThreshold(v) } : { problem: 'a score, e.g. 0.9' }),
  timeout: (v) => {
    const ms = parseDuration(v);
    return ms === undefined ? { problem: 'a duration, e.g. "10m", "30s", "2h", or milliseconds' } : { stopper: stoppers.timeout(ms) };
  },
  noImprovement: (v) => (isPositiveInt(v) ? { stopper: stoppers.noImprovement(v) } : { problem: 'a positive integer (folds in a row without a better best)' }),
  file: (v, base) => (typeof v === 'string' && v !== '' ? { stopper: stoppers.file(resolve(base, v)) } : { problem: 'a file path, relative to the config' }),
  maxCandidates: (v) => (isPositiveInt(v) ? { stopper: stoppers.maxCandidates(v) } : { problem: 'a positive integer' }),
  maxMetricCalls: (v) => (isPositiveInt(v) ? { stopper: stoppers.maxMetricCalls(v) } : { problem: 'a positive integer' }),
  maxCostUsd: (v) => (isPositive(v) ? { stopper: stoppers.maxCostUsd(v) } : { problem: 'a positive number of dollars' }),
  maxProposals: (v) => (isPositiveInt(v) ? { stopper: stoppers.maxProposals(v) } : { problem: 'a positive integer' }),
  any: (v, base, path) => composite(v, base, path, stoppers.any),
  all: (v, base, path) => composite(v, base, path, stoppers.all),
};

/** The names a stopWhen entry may have. */
export const CONFIG_STOPPER_NAMES = Object.keys(BUILT_INS);

function composite(value: unknown, base: string, path: string, combine: (...members: Stopper[]) => Stopper): Read {
  if (!Array.isArray(value) || value.length === 0) return { problem: 'a list of stopWhen entries' };
  const read = readStoppers(value, base, path);
  return 'problems' in read ? read : { stopper: combine(...read.stoppers) };
}

/** The stoppers a config's stopWhen (an entry, or a list of them) names, or every problem, each with its place (`stopWhen[1]`). */
export function readStoppers(value: unknown, base: string, path = 'stopWhen'): { stoppers: Stopper[] } | { problems: string[] } {
  const entries = Array.isArray(value) ? value : [value];
  const list = Array.isArray(value);
  const stoppersRead: Stopper[] = [];
  const problems: string[] = [];
  entries.forEach((entry, i) => {
    const at = list ? `${path}[${i}]` : path;
    const keys = typeof entry === 'object' && entry !== null && !Array.isArray(entry) ? Object.keys(entry) : [];
    if (keys.length !== 1) {
      problems.push(`${at}: must name one stopper and its argument, e.g. { "scoreThreshold": 0.9 } (${CONFIG_STOPPER_NAMES.join(', ')})`);
      return;
    }
    const name = keys[0] as string;
    const make = BUILT_INS[name];
    if (!make) {
      problems.push(`${at}: ${notOneOf(CONFIG_STOPPER_NAMES, name)}`);
      return;
    }
    const read = make((entry as Record<string, unknown>)[name], base, `${at}.${name}`);
    if ('problem' in read) problems.push(`${at}.${name}: must be ${read.problem}`);
    else if ('problems' in read) problems.push(...read.problems);
    else stoppersRead.push(read.stopper);
  });
  return problems.length > 0 ? { problems } : { stoppers: stoppersRead };
}
