// Axis arithmetic shared by the report's SVG charts: "nice" tick values (1, 2 or 5 times a power
// of ten) and a linear map from data to pixels.

/** Multiples of a 1-2-5 step inside [lo, hi], about `count` of them. */
export function niceTicks(lo: number, hi: number, count = 5): number[] {
  if (!(hi > lo) || !Number.isFinite(lo) || !Number.isFinite(hi)) return [lo];
  const raw = (hi - lo) / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 5, 10].find((f) => f * power >= raw) ?? 10) * power;
  const ticks: number[] = [];
  for (let k = Math.ceil(lo / step - 1e-9); k * step <= hi + 1e-9 * step; k++) ticks.push(Number((k * step).toPrecision(12)));
  return ticks;
}

/** Maps [d0, d1] onto [r0, r1]; a zero-width domain maps to r0. */
export function linearScale(d0: number, d1: number, r0: number, r1: number): (x: number) => number {
  const span = d1 - d0;
  return (x) => (span === 0 ? r0 : r0 + ((x - d0) / span) * (r1 - r0));
}

/** Pixel coordinates in SVG attributes: one decimal is plenty. */
export const px = (x: number): string => (Math.round(x * 10) / 10).toString();
