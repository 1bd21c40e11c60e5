// Language-model text printed on a terminal cannot drive it: escape sequences and control
// characters are removed from the summary and the progress lines, and escaped in --json stdout.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { terminalSafe, terminalSafeJson } from '../src/cli/terminalText.js';
import { printOutcome } from '../src/cli/runSummary.js';
import { createProgressDisplay } from '../src/cli/progressDisplay.js';
import type { OptimizeResult } from '../src/gepa/core/optimizeResult.js';
import { memoryIo } from './support/memoryIo.js';

const HOSTILE = 'Answer.\x1b[2J\x1b[31mred\x1b[0m\x1b]0;pwned title\x07 ok\rover\x9b6n\x00\tend\nnext';

describe('terminalSafe', () => {
  it('removes CSI, OSC, carriage returns, NUL and C1 controls; keeps tabs and newlines', () => {
    expect(terminalSafe(HOSTILE)).toBe('Answer.red okover6n\tend\nnext');
    expect(terminalSafe('plain text, ünïcode ✓')).toBe('plain text, ünïcode ✓');
  });
  it('JSON lines escape DEL and C1 as well, and still parse to the same text', () => {
    const line = terminalSafeJson({ text: HOSTILE });
    expect(line).not.toMatch(/[\x00-\x1f\x7f-\x9f]/);
    expect(JSON.parse(line)).toEqual({ text: HOSTILE });
  });
});

describe('what the CLI prints', () => {
  const result = {
    candidates: [{ system_prompt: HOSTILE }],
    parents: [[]],
    valScores: [0.5],
    valSubscores: [[0.5]],
    bestIndex: 0,
    bestCandidate: { system_prompt: HOSTILE },
    bestScore: 0.5,
    metricCalls: 3,
    reflectionCalls: 0,
    costUsd: 0,
    discoveryMetricCalls: [3],
    discoveryElapsedMs: [0],
    stopReason: 'maxMetricCalls',
    proposals: [],
    elapsedMs: 1,
    workerUtilization: 0,
  } as unknown as OptimizeResult;

  it('the summary and the --json line carry no control character', () => {
    for (const json of [false, true]) {
      const io = memoryIo();
      printOutcome(io, json, { heading: 'h', result });
      expect(io.out() + io.err()).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
      expect(io.out() + io.err()).toContain('Answer.red ok');
    }
  });

  it('a progress line carries none either', () => {
    let text = '';
    const stream = new Writable({
      write(chunk: Buffer | string, _encoding, callback) {
        text += chunk.toString();
        callback();
      },
    });
    const display = createProgressDisplay({ mode: 'lines', stream, workers: 1, budget: {}, clock: new SimulatedClock() });
    display.onEvent({ type: 'error', message: `metric call failed: ${HOSTILE}`, failure: { kind: 'malformed', message: HOSTILE } });
    display.notice(HOSTILE);
    expect(text).toContain('error: metric call failed: Answer.red ok');
    expect(text).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
  });
});
