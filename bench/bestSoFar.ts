// Best-so-far valset curves over seeds, and the time a curve reaches a score: the measuring stick
// of the time-to-quality bench (issue 47). A run's curve is a step function: the seed candidate's
// valset score from time 0 (what the user holds before any result), then the best score found so
// far at each discovery. The seed-mean curve is the mean of the seeds' step functions at every
// instant (a run that ended keeps its final best).

/** One run's best-so-far steps: [elapsed ms, best valset score so far], times ascending, scores rising. */
export type Steps = ReadonlyArray<readonly [number, number]>;

/** A run's steps from its discoveries (elapsed ms, valset score) in any order; the first score holds from time 0. */
export function bestSoFarSteps(discoveries: ReadonlyArray<readonly [number, number]>): Array<[number, number]> {
  const sorted = [...discoveries].sort((a, b) => a[0] - b[0]);
  const steps: Array<[number, number]> = [];
  for (const [t, score] of sorted) {
    const last = steps[steps.length - 1];
    if (last === undefined) steps.push([0, score]);
    else if (score > last[1]) steps.push([t, score]);
  }
  return steps;
}

/** The mean over runs of their step functions, as steps (one point per instant at which the mean changes). */
export function seedMeanCurve(runs: readonly Steps[]): Array<[number, number]> {
  if (runs.length === 0) return [];
  const events = runs.flatMap((steps, run) => steps.slice(1).map(([t, score]) => ({ t, run, score })));
  events.sort((a, b) => a.t - b.t || a.run - b.run);
  const current = runs.map((steps) => steps[0]?.[1] ?? 0);
  let sum = current.reduce((a, b) => a + b, 0);
  const curve: Array<[number, number]> = [[0, sum / runs.length]];
  for (let i = 0; i < events.length; i++) {
    const e = events[i] as (typeof events)[number];
    sum += e.score - (current[e.run] as number);
    current[e.run] = e.score;
    if (events[i + 1]?.t === e.t) continue;
    curve.push([e.t, sum / runs.length]);
  }
  return curve;
}

/** When steps first reach `target` (Infinity if never). */
export function firstReach(steps: Steps, target: number): number {
  for (const [t, score] of steps) if (score >= target - 1e-12) return t;
  return Infinity;
}

/** The steps' value at time t. */
export function valueAt(steps: Steps, t: number): number {
  let value = steps[0]?.[1] ?? 0;
  for (const [at, score] of steps) {
    if (at > t) break;
    value = score;
  }
  return value;
}
