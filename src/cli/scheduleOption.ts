// Parses the --schedule flag: `batched` (1x1), `batched:PxN` (the paper's P parents x N
// children per step), `async:K` (K proposals always in flight), `async:KxN` (K in flight, N
// children from each parent evaluation) or `auto` (the runtime chooses).
import { InvalidArgumentError } from 'commander';
import type { Schedule } from '../settingValues.js';

const POSITIVE = /^[1-9]\d*$/;

export function parseScheduleOption(text: string): Schedule {
  const value = text.trim().toLowerCase();
  if (value === 'batched') return { kind: 'batched', parents: 1, perParent: 1 };
  if (value === 'auto') return { kind: 'auto' };
  const batched = /^batched:(\d+)x(\d+)$/.exec(value);
  if (batched && POSITIVE.test(batched[1] as string) && POSITIVE.test(batched[2] as string)) {
    return { kind: 'batched', parents: Number(batched[1]), perParent: Number(batched[2]) };
  }
  const async = /^async:(\d+)(?:x(\d+))?$/.exec(value);
  if (async && POSITIVE.test(async[1] as string) && (async[2] === undefined || POSITIVE.test(async[2]))) {
    const perParent = Number(async[2] ?? 1);
    return { kind: 'async', inFlight: Number(async[1]), ...(perParent > 1 ? { perParent } : {}) };
  }
  throw new InvalidArgumentError('expected batched, batched:PxN (e.g. batched:2x2), async:K or async:KxN (e.g. async:8, async:8x2), with positive integers, or auto');
}

/** A schedule as the --schedule flag spells it (the inverse of parseScheduleOption). */
export function scheduleOptionText(schedule: Schedule): string {
  if (schedule.kind === 'auto') return 'auto';
  if (schedule.kind === 'batched') return `batched:${schedule.parents}x${schedule.perParent}`;
  return (schedule.perParent ?? 1) > 1 ? `async:${schedule.inFlight}x${schedule.perParent}` : `async:${schedule.inFlight}`;
}

/** A commander parser for positive integer flags. */
export function parsePositiveInt(text: string): number {
  if (!POSITIVE.test(text.trim())) throw new InvalidArgumentError('expected a positive integer');
  return Number(text);
}

/** A commander parser for integer flags (seeds may be 0 or negative). */
export function parseInteger(text: string): number {
  if (!/^-?\d+$/.test(text.trim())) throw new InvalidArgumentError('expected an integer');
  return Number(text);
}

/** A commander parser for non-negative numbers (simulated latencies). */
export function parseNonNegative(text: string): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n < 0) throw new InvalidArgumentError('expected a number >= 0');
  return n;
}
