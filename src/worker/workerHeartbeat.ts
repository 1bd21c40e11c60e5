// A worker process's heartbeat: every HEARTBEAT_MS it stamps its name in the queue's beat set
// (src/executors/workerBeats.ts), so the runs' executors know within about a second when it is
// gone, frozen or cut off, and run its calls elsewhere. It reports its recent gaps between beats
// (GapWindow): an adapter that keeps the event loop busy for seconds again and again makes long
// gaps, and the executors then wait longer before calling this worker lost. A beat still on its way (the
// network is down) is not followed by another.
import { systemClock, type Clock } from '../clock.js';
import { BEAT_KEYS, BEAT_SCRIPT, FORGET_SCRIPT, GapWindow, HEARTBEAT_MS } from '../executors/workerBeats.js';

const STOP_WAIT_MS = 1000;

/** The Redis commands a heartbeat needs (ioredis's eval). */
export interface BeatClient {
  eval(script: string, keys: number, ...args: string[]): Promise<unknown>;
}

export interface Heartbeat {
  /** Stops beating and removes the entry: a worker that stopped cleanly is not lost. */
  stop(): Promise<void>;
}

/** Starts beating at once. `toKey` makes a key under the queue's prefix (BullMQ's `worker.toKey`). */
export function startHeartbeat(client: BeatClient, toKey: (name: string) => string, name: string, onError: (error: Error) => void, clock: Clock = systemClock): Heartbeat {
  const keys = [toKey(BEAT_KEYS.beats), toKey(BEAT_KEYS.gaps)];
  const gaps = new GapWindow(clock.now());
  let inFlight: Promise<unknown> | undefined;
  // One line per outage, not four a second.
  let failing = false;
  const beat = () => {
    const gapMs = gaps.beat(clock.now());
    if (inFlight) return;
    inFlight = client
      .eval(BEAT_SCRIPT, 2, ...keys, name, String(Math.round(gapMs)))
      .then(
        () => (failing = false),
        (error: unknown) => {
          if (!failing) onError(error instanceof Error ? error : new Error(String(error)));
          failing = true;
        },
      )
      .finally(() => (inFlight = undefined));
  };
  beat();
  const timer = setInterval(beat, HEARTBEAT_MS);
  // The worker's own connections keep the process alive; the heartbeat must not.
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      // Redis out of reach must not hold a stopping worker: its entry then ages out as a lost worker's would.
      let bound: ReturnType<typeof setTimeout> | undefined;
      const giveUp = new Promise<void>((resolve) => (bound = setTimeout(resolve, STOP_WAIT_MS)));
      const forget = (async () => {
        await inFlight;
        await client.eval(FORGET_SCRIPT, 2, ...keys, name).catch(() => {});
      })();
      await Promise.race([forget, giveUp]);
      clearTimeout(bound);
    },
  };
}
