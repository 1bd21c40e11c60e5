// The order in which CPython iterates a set of small non-negative ints, for the reference's tie
// order: gepa 0.1.4 keeps each valset example's front as a Python set (built as {first} and then
// grown with ever larger candidate indices, copied with set() before dominated removal), and its
// dict of candidates fills in the order it meets them there. A set iterates by hash-table slot,
// not by value: {2, 3, 8, 9} in an 8-slot table iterates 8, 9, 2, 3. This replays CPython's
// table (open addressing: 9 linear probes, then perturbed jumps; a table grows to the smallest
// power of two above 4x its size once it is 3/5 full, and a copy is sized for twice its size).

const MIN_SIZE = 8;
const LINEAR_PROBES = 9;
const PERTURB_SHIFT = 5;
const EMPTY = -1;

/** Stores `key` (its own hash: a small non-negative int) in the first free slot CPython would pick. */
function insertClean(table: Int32Array, mask: number, key: number): void {
  let i = key & mask;
  let perturb = key;
  for (;;) {
    if (table[i] === EMPTY) {
      table[i] = key;
      return;
    }
    if (i + LINEAR_PROBES <= mask) {
      for (let j = 1; j <= LINEAR_PROBES; j++) {
        if (table[i + j] === EMPTY) {
          table[i + j] = key;
          return;
        }
      }
    }
    perturb = Math.floor(perturb / 2 ** PERTURB_SHIFT);
    i = (i * 5 + 1 + perturb) & mask;
  }
}

/** The smallest table size CPython's set_table_resize picks for `minUsed`. */
function tableSize(minUsed: number): number {
  let size = MIN_SIZE;
  while (size <= minUsed) size *= 2;
  return size;
}

/** A fresh table of `size` holding the keys in `keys` order (how a resize or a copy refills one). */
function refill(keys: readonly number[], size: number): Int32Array {
  const table = new Int32Array(size).fill(EMPTY);
  for (const key of keys) insertClean(table, size - 1, key);
  return table;
}

/** The keys in slot order (a loop: this runs for every front after every addition). */
function slotOrder(table: Int32Array): number[] {
  const keys: number[] = [];
  for (let i = 0; i < table.length; i++) if ((table[i] as number) !== EMPTY) keys.push(table[i] as number);
  return keys;
}

/** A set as CPython holds it after adding its members in ascending order: the slots and how many are used. */
export interface GrownSet {
  readonly table: Int32Array;
  readonly used: number;
}

/** Adds `key` to `table` in place (a table of `used` members before); returns the table, resized when CPython would. */
function addInPlace(table: Int32Array, used: number, key: number): Int32Array {
  insertClean(table, table.length - 1, key);
  const now = used + 1;
  return now * 5 >= (table.length - 1) * 3 ? refill(slotOrder(table), tableSize(now > 50000 ? now * 2 : now * 4)) : table;
}

/**
 * `set` after `s.add(key)`, `key` above every member (how a front grows when a later candidate
 * ties it). The given set is used up: its table may be the answer's, changed.
 */
export function addedInPlace(set: GrownSet, key: number): GrownSet {
  return { table: addInPlace(set.table, set.used, key), used: set.used + 1 };
}

/** The set `{a}` grown by `s.add(b)` for the other members in ascending order. */
export function grownSet(members: readonly number[]): GrownSet {
  const ascending = [...members].sort((a, b) => a - b);
  let table: Int32Array = new Int32Array(MIN_SIZE).fill(EMPTY);
  ascending.forEach((key, used) => (table = addInPlace(table, used, key)));
  return { table, used: ascending.length };
}

/**
 * Iteration order of `set(s)` for a set grown as `grownSet` says (how gepa's state builds a
 * front, which dominated removal copies with set()).
 */
export function copyOrder(set: GrownSet): number[] {
  // set(s): an empty 8-slot set is resized for twice the members when they would fill it past
  // 3/5; a table of the source's size takes a slot-for-slot copy, another is refilled in slot order.
  const { table, used } = set;
  const copySize = used * 5 >= (MIN_SIZE - 1) * 3 ? tableSize(used * 2) : MIN_SIZE;
  return copySize === table.length ? slotOrder(table) : slotOrder(refill(slotOrder(table), copySize));
}

/**
 * Iteration order of `set(s)` where `s` was made as `{a}` and grown by `s.add(b)` for the other
 * members in ascending order (how gepa's state builds a front), after copying it with set().
 */
export function pythonSetOrder(members: readonly number[]): number[] {
  return copyOrder(grownSet(members));
}
