/**
 * `gepa-actors/testing`: what a test of one's own adapter, hooks or embedding needs: simulated time
 * (a stepping clock over XState's SimulatedClock, a whole run on simulated time) and the seeded
 * random source the hooks are handed. docs/testing.md.
 *
 * @module gepa-actors/testing
 */
export { steppingClock, runOnSimulatedClock, type SettableClock, type SteppingClock } from '../clock.js';
export { Rng, type RngState } from '../gepa/core/rng.js';
