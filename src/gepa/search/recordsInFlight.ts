// The run's table of proposals in flight (a plain record keyed by proposal id), owned by the run's
// state (runState.ts, held by reference) and changed in place: a launch adds records, a report
// replaces one, a fold deletes them. The rules that decide over the table (childAnswers.ts,
// proposalDecisions.ts, lastCalls.ts, gatePrefetch.ts) are given it and change it in place too,
// answering with what to send. It is kept a dictionary from the start: every id is new ("p812-3")
// and records are deleted as proposals finish, so a table with a hidden class would walk V8's
// class transitions for keys never seen before, a new class per key, thousands a run (measured:
// copies of such tables, made at every event before, cost about 2.5x a dictionary copy).

/** An empty table that V8 keeps in dictionary mode (it had properties deleted). */
export function emptyRecords<T>(): Record<string, T> {
  const table: Record<string, unknown> = { dictionaryMode: 0, ofManyKeys: 0 };
  delete table.dictionaryMode;
  delete table.ofManyKeys;
  return table as Record<string, T>;
}

/** A copy of a table, itself a dictionary: for a table read back from its plain values. */
export function recordsFrom<T>(records: Readonly<Record<string, T>>): Record<string, T> {
  const copy = emptyRecords<T>();
  for (const id in records) copy[id] = records[id] as T;
  return copy;
}
