// A resumed async run's walk of its logged path, as plain values (src/storage/resumeOrder.ts):
// which decision comes next, which report waits its turn, what is logged when the run leaves the
// path or is past it (numbered as the run's decisions are), and when logged work is held.
import { describe, expect, it } from 'vitest';
import { expectedDecision, outOfTurn, pastLoggedPath, startResume, takeDecision, type ResumePosition } from '../src/storage/resumeOrder.js';
import type { ScheduleDecision } from '../src/gepa/core/workJournal.js';

const PATH: ScheduleDecision[] = [
  { kind: 'judged', id: 'p1-0' },
  { kind: 'finished', id: 'p2-0' },
  { kind: 'finished', id: 'p1-0' },
];

/** Takes the decisions in order, collecting what is logged. */
function walk(resume: ResumePosition | undefined, decisions: ScheduleDecision[]): { resume: ResumePosition | undefined; logged: unknown[] } {
  const logged: unknown[] = [];
  for (const d of decisions) {
    const taken = takeDecision(resume, d);
    resume = taken.resume;
    if (taken.logged) logged.push(taken.logged);
  }
  return { resume, logged };
}

describe('the walk of a logged path', () => {
  it('a batched run follows no path: nothing is expected, out of turn, held or logged', () => {
    const resume = startResume(PATH, false);
    expect(resume).toBeUndefined();
    expect([expectedDecision(resume), outOfTurn(resume, { 'p1-0': {} }, 'p2-0'), pastLoggedPath(resume)]).toEqual([undefined, false, false]);
    expect(walk(resume, PATH).logged).toEqual([]);
  });

  it('on the path: each decision moves it on and logs nothing; past its end, every decision is logged with its number', () => {
    const start = startResume(PATH, true);
    expect(expectedDecision(start)).toEqual(PATH[0]);
    const onPath = walk(start, PATH);
    expect(onPath.logged).toEqual([]);
    expect(onPath.resume).toEqual({ path: PATH, taken: 3, left: false });
    expect(pastLoggedPath(onPath.resume)).toBe(true);
    expect(walk(onPath.resume, [{ kind: 'judged', id: 'p3-0' }, { kind: 'finished', id: 'p3-0' }]).logged).toEqual([
      { kind: 'judged', id: 'p3-0', n: 3 },
      { kind: 'finished', id: 'p3-0', n: 4 },
    ]);
  });

  it('leaving the path: the first other decision is logged at its number, and so is every one after it, even one the path held', () => {
    const left = walk(startResume(PATH, true), [PATH[0] as ScheduleDecision, { kind: 'finished', id: 'p1-0' }, { kind: 'finished', id: 'p2-0' }]);
    expect(left.logged).toEqual([
      { kind: 'finished', id: 'p1-0', n: 1 },
      { kind: 'finished', id: 'p2-0', n: 2 },
    ]);
    expect(left.resume?.left).toBe(true);
    expect(expectedDecision(left.resume)).toBeUndefined();
  });

  it("a report waits while the expected proposal is in flight and is not the report's; it is taken when that proposal is gone", () => {
    const resume = startResume(PATH, true);
    expect(outOfTurn(resume, { 'p1-0': {}, 'p2-0': {} }, 'p2-0')).toBe(true);
    expect(outOfTurn(resume, { 'p1-0': {}, 'p2-0': {} }, 'p1-0')).toBe(false);
    expect(outOfTurn(resume, { 'p2-0': {} }, 'p2-0')).toBe(false);
  });

  it('logged work is held once the path is walked or left, and from the start of an async run with an empty path', () => {
    expect(pastLoggedPath(startResume(PATH, true))).toBe(false);
    expect(pastLoggedPath(walk(startResume(PATH, true), PATH.slice(0, 2)).resume)).toBe(false);
    expect(pastLoggedPath(walk(startResume(PATH, true), [{ kind: 'finished', id: 'p9-0' }]).resume)).toBe(true);
    expect(pastLoggedPath(startResume([], true))).toBe(true);
    expect(pastLoggedPath(startResume(undefined, true))).toBe(true);
  });

  it('the walk is a value: taking a decision leaves the position it was given unchanged', () => {
    const start = startResume(PATH, true);
    const copy = structuredClone(start);
    takeDecision(start, PATH[0] as ScheduleDecision);
    takeDecision(start, { kind: 'finished', id: 'p7-0' });
    expect(start).toEqual(copy);
  });
});
