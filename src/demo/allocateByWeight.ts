// Largest-remainder allocation of a split's examples to kinds by weight, so that even small
// splits are representative of the kinds' frequencies. Shared by the demo datasets.

/** `size` kinds in kind order, each kind repeated in proportion to its weight. */
export function allocateByWeight<K>(size: number, kinds: readonly K[], weightOf: (kind: K) => number): K[] {
  const total = kinds.reduce((s, k) => s + weightOf(k), 0);
  const exact = kinds.map((k) => (size * weightOf(k)) / total);
  const counts = exact.map(Math.floor);
  const byRemainder = kinds.map((_, i) => i).sort(
    (a, b) => (exact[b] as number) - (counts[b] as number) - ((exact[a] as number) - (counts[a] as number)) || a - b,
  );
  for (let left = size - counts.reduce((s, c) => s + c, 0), j = 0; left > 0; left--, j++) {
    const i = byRemainder[j % byRemainder.length] as number;
    counts[i] = (counts[i] as number) + 1;
  }
  return kinds.flatMap((k, i) => Array<K>(counts[i] as number).fill(k));
}
