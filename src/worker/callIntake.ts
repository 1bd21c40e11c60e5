// How a worker's `--concurrency N` counts metric calls when a job may carry several (a batch job:
// one call per example of a minibatch or valset slice): at most N calls run at once (`run`; the
// others of a job wait their turn), and the worker takes new jobs only while it holds fewer than
// N calls, as many as fit in the calls it lacks at the size of the jobs seen lately, so it does
// not hoard jobs whose calls would only wait in it while other workers idle. runWorker tells it each
// job taken and done and sets BullMQ's job concurrency to its answer.

/** Weight of the newest job's size in the running mean of job sizes. */
const SIZE_WEIGHT = 0.25;

export class CallIntake {
  private callsHeld = 0;
  private jobsHeld = 0;
  private meanSize = 1;
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  /** `limit`: the calls the worker runs at once (its --concurrency). */
  constructor(readonly limit: number) {}

  /** A job of `size` calls was taken. Returns the jobs to hold at most now. */
  took(size: number): number {
    this.callsHeld += size;
    this.jobsHeld++;
    this.meanSize += SIZE_WEIGHT * (size - this.meanSize);
    return this.jobsWanted();
  }

  /** A job of `size` calls ended. Returns the jobs to hold at most now. */
  done(size: number): number {
    this.callsHeld -= size;
    this.jobsHeld--;
    return this.jobsWanted();
  }

  /** Runs the call once fewer than `limit` are running, first come first served. */
  async run<T>(call: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await call();
    } finally {
      // The slot passes straight to the next call waiting, if any.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }

  /** The calls in the jobs held now. */
  get calls(): number {
    return this.callsHeld;
  }

  /**
   * Jobs held plus those that fit in the calls lacking, at the mean job size; never fewer than
   * one (BullMQ's floor), never more jobs than calls (a job has at least one). Less than a job
   * lacking takes no job: its calls would wait here for a slot (a whole call's time) while
   * other workers have room for it.
   */
  jobsWanted(): number {
    const lacking = this.limit - this.callsHeld;
    if (lacking <= 0) return Math.max(1, this.jobsHeld);
    return Math.max(1, this.jobsHeld + Math.floor(lacking / this.meanSize));
  }
}
