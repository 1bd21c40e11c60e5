// The one source of randomness: a seeded sfc32 generator (Small Fast Counter, 128-bit state),
// seeded through splitmix32 so that nearby seeds give unrelated streams. Every random choice
// in the project goes through an Rng passed in; its state can be saved and restored exactly.

/** An Rng's whole state (getState), to restore it exactly with `new Rng(state)`. */
export type RngState = readonly [number, number, number, number];

function splitmix32(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (x + 0x9e3779b9) >>> 0;
    let z = x;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
}

/** The state an Rng seeded with `seed` starts from. */
export const seededRngState = (seed: number): RngState => new Rng(seed).getState();

/**
 * Draws from a state without changing it: `draw` runs on a generator restored from `state`, and
 * the answer is its value and the state after its draws (the same draws, in the same order, as
 * on one long-lived Rng).
 */
export function drawFrom<T>(state: RngState, draw: (rng: Rng) => T): { value: T; state: RngState } {
  const rng = new Rng(state);
  const value = draw(rng);
  return { value, state: rng.getState() };
}


/** The seeded random number generator every random choice of a run goes through (sfc32). */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number | RngState = 0) {
    if (typeof seed === 'number') {
      const next = splitmix32(seed);
      [this.a, this.b, this.c, this.d] = [next(), next(), next(), next()];
    } else {
      [this.a, this.b, this.c, this.d] = seed;
    }
  }

  /** A uint32. */
  nextUint32(): number {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0;
    this.d = (this.d + 1) >>> 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) >>> 0;
    this.c = ((this.c << 21) | (this.c >>> 11)) >>> 0;
    this.c = (this.c + t) >>> 0;
    return t;
  }

  /** A float in [0, 1). */
  next(): number {
    return this.nextUint32() / 4294967296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    if (!Number.isInteger(n) || n <= 0) throw new RangeError(`Rng.int needs a positive integer, got ${n}`);
    return Math.floor(this.next() * n);
  }

  /** One of `items`, uniformly. */
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('Rng.pick on an empty list');
    return items[this.int(items.length)] as T;
  }

  /** A shuffled copy (Fisher-Yates). */
  shuffle<T>(items: readonly T[]): T[] {
    const out = items.slice();
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      [out[i], out[j]] = [out[j] as T, out[i] as T];
    }
    return out;
  }

  /** The state now; `new Rng(state)` continues the same stream. */
  getState(): RngState {
    return [this.a, this.b, this.c, this.d];
  }
}
