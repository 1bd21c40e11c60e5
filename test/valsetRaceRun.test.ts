// A granted valset race as its proposer runs it (valsetRaceRun.ts): the race's rule asked once per
// chunk; what comes next is the chunk's example ids, a stop with why, or the complete valset scores.
import { describe, expect, it } from 'vitest';
import { raceAfterChunk, raceResult, startRace } from '../src/gepa/proposer/valsetRaceRun.js';
import { planValsetRace } from '../src/gepa/strategies/valsetPolicy.js';

const parentScores = [1, 1, 0, 1, 0, 1];
const bestScores = [1, 1, 1, 1, 0, 1];
/** Valset position j is example-table id 10 + j. */
const valIds = [10, 11, 12, 13, 14, 15];
const evals = (...scores: number[]) => scores.map((score) => ({ score, output: `out ${score}` }));

describe('valset race run', () => {
  it('asks for the chunks in the race order, by example id, and completes with the scores in valset order', () => {
    const plan = planValsetRace({ kind: 'race', chunk: 4, margin: 0 }, parentScores, bestScores, 4)!;
    let race = startRace(plan, valIds);
    expect(race.next).toEqual({ kind: 'evaluate', positions: [4, 5, 0, 1], exampleIds: [14, 15, 10, 11] });
    race = raceAfterChunk(race, evals(0.5, 1, 1, 1));
    expect(race.next).toEqual({ kind: 'evaluate', positions: [2, 3], exampleIds: [12, 13] });
    expect(raceResult(race)).toEqual({});
    race = raceAfterChunk(race, evals(0, 1));
    expect(race.next).toMatchObject({ kind: 'complete', valset: { subscores: [1, 1, 0, 1, 0.5, 1] } });
    expect(raceResult(race)).toEqual({ valset: { subscores: [1, 1, 0, 1, 0.5, 1], objectives: Array(6).fill(null), outputs: ['out 1', 'out 1', 'out 0', 'out 1', 'out 0.5', 'out 1'] } });
  });

  it('stops a child that trails its parent, with the reason, and records no valset scores', () => {
    const plan = planValsetRace({ kind: 'race', chunk: 2, margin: 0 }, parentScores, bestScores, 0)!;
    const race = raceAfterChunk(startRace(plan, valIds), evals(0, 1));
    expect(race.next).toMatchObject({ kind: 'stop', reason: expect.stringMatching(/^lost its valset race: 1 vs its parent's 2 on the first 2 of 6/) });
    expect(raceResult(race)).toEqual({ valsetStop: (race.next as { reason: string }).reason });
  });
});
