// Sums and means of score lists: the minibatch gate compares sums, the pool ranks by means.
export const sum = (xs: ReadonlyArray<number>): number => xs.reduce((a, b) => a + b, 0);
export const mean = (xs: ReadonlyArray<number>): number => (xs.length === 0 ? 0 : sum(xs) / xs.length);
