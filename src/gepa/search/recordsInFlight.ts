// Copies of the run's table of proposals in flight (a plain record keyed by proposal id), made
// the cheap way. Every id is new ("p812-3"), and records are dropped as proposals finish: copied
// with object spread, each copy walks V8's hidden-class transitions for keys never seen before,
// a new class per key, thousands a run (measured: about 2.5x the cost of a dictionary copy, and
// the garbage it leaves). These copies are dictionaries from the start, as the table is anyway
// once a record has been deleted. Same keys, same values, same order as a spread.

/** An empty record that V8 keeps in dictionary mode (it had properties deleted). */
function dictionary<T>(): Record<string, T> {
  const table: Record<string, unknown> = { dictionaryMode: 0, ofManyKeys: 0 };
  delete table.dictionaryMode;
  delete table.ofManyKeys;
  return table as Record<string, T>;
}

/** `{ ...records, ...changes }`. */
export function withRecords<T>(records: Readonly<Record<string, T>>, changes?: Readonly<Record<string, T>>): Record<string, T> {
  const copy = dictionary<T>();
  for (const id in records) copy[id] = records[id] as T;
  if (changes) for (const id in changes) copy[id] = changes[id] as T;
  return copy;
}

/** `{ ...records, [id]: record }`, without the one-key object a computed literal builds (a hidden class per new id). */
export function withRecord<T>(records: Readonly<Record<string, T>>, id: string, record: T): Record<string, T> {
  const copy = withRecords(records);
  copy[id] = record;
  return copy;
}

/** `{ ...records }` without the records of `ids`. */
export function withoutRecords<T>(records: Readonly<Record<string, T>>, ids: readonly string[]): Record<string, T> {
  const copy = withRecords(records);
  for (const id of ids) delete copy[id];
  return copy;
}
