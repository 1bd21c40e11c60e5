// One table of the run's examples, so that an example in both the trainset and the valset (the
// default valset is the trainset) has one id and one cache entry. Objects are identified by
// reference, primitives by value.
export interface ExampleTable<Example> {
  examples: Example[];
  /** trainIds[i]: table id of trainset[i]. */
  trainIds: number[];
  /** valIds[j]: table id of valset[j]. */
  valIds: number[];
  /** holdoutIds[k]: table id of holdout[k], the held-out selection set (empty without one). */
  holdoutIds?: number[];
}

export function buildExampleTable<Example>(trainset: readonly Example[], valset: readonly Example[], holdout: readonly Example[] = []): ExampleTable<Example> {
  const examples: Example[] = [];
  const ids = new Map<unknown, number>();
  const idOf = (example: Example): number => {
    let id = ids.get(example);
    if (id === undefined) {
      id = examples.length;
      examples.push(example);
      ids.set(example, id);
    }
    return id;
  };
  const trainIds = trainset.map(idOf);
  const valIds = valset.map(idOf);
  return { examples, trainIds, valIds, ...(holdout.length > 0 ? { holdoutIds: holdout.map(idOf) } : {}) };
}
