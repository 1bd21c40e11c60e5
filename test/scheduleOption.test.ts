// The --schedule flag's grammar: batched, batched:PxN, async:K, async:KxN; anything else is a usage error.
import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { parseScheduleOption, scheduleOptionText } from '../src/cli/scheduleOption.js';

describe('parseScheduleOption', () => {
  it.each([
    ['batched', { kind: 'batched', parents: 1, perParent: 1 }],
    ['batched:2x4', { kind: 'batched', parents: 2, perParent: 4 }],
    ['Batched:8X1', { kind: 'batched', parents: 8, perParent: 1 }],
    ['async:16', { kind: 'async', inFlight: 16 }],
    ['async:8x3', { kind: 'async', inFlight: 8, perParent: 3 }],
    ['async:8x1', { kind: 'async', inFlight: 8 }],
  ])('%s', (text, schedule) => {
    expect(parseScheduleOption(text)).toEqual(schedule);
  });

  it.each(['async', 'async:0', 'batched:0x2', 'batched:2', 'batched:2x2x2', 'parallel:4', 'async:-1', 'async:1.5', 'async:8x0', 'async:8x', 'async:8x2x2'])('rejects %s', (text) => {
    expect(() => parseScheduleOption(text)).toThrow(InvalidArgumentError);
  });

  it('scheduleOptionText spells a schedule as the flag takes it', () => {
    for (const text of ['batched:2x4', 'async:16', 'async:8x3']) expect(scheduleOptionText(parseScheduleOption(text))).toBe(text);
  });
});
