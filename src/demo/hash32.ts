// Fast 32-bit hashing for the simulated models: FNV-1a over strings and a murmur3-style
// finalizer to combine numbers. Every "random" choice of the demo task is derived from a hash
// of its inputs, so results never depend on call order, timing or worker count.

/** FNV-1a over UTF-16 code units, finalized so that similar strings spread well. */
export function hashString(text: string, seed = 0): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return fmix32(h);
}

/** murmur3's avalanche step. */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Order-sensitive combination of 32-bit values into one. */
export function combineHashes(a: number, b: number, c = 0): number {
  return fmix32((Math.imul(fmix32(a ^ 0x9e3779b9), 31) ^ b) + Math.imul(c, 0x27d4eb2f));
}

/** A float in [0, 1) drawn from a hash. */
export function unitFromHash(h: number): number {
  return (h >>> 0) / 4294967296;
}
