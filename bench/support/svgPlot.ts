// A small line chart as SVG text, for the bench reports: step curves on a log-scaled time axis,
// a dashed horizontal target line, axis ticks and a legend. No dependency: the bench writes the
// file itself and the README links it.

export interface PlotSeries {
  label: string;
  /** [x, y] step points, x ascending; drawn as a step function up to `xMax`. */
  points: ReadonlyArray<readonly [number, number]>;
  /** Drawn thicker. */
  emphasis?: boolean;
}

export interface PlotOptions {
  title: string;
  xLabel: string;
  yLabel: string;
  /** Log-scaled x range (both > 0). */
  xMin: number;
  xMax: number;
  yMin: number;
  yMax: number;
  /** A dashed horizontal line, labelled. */
  target?: { y: number; label: string };
}

const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf', '#393b79', '#637939', '#8c6d31', '#843c39'];
const escape = (s: string) => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

export function stepChartSvg(series: readonly PlotSeries[], o: PlotOptions): string {
  const [width, height] = [760, 430];
  const m = { left: 60, right: 190, top: 34, bottom: 46 };
  const w = width - m.left - m.right;
  const h = height - m.top - m.bottom;
  const lx = (x: number) => Math.log10(Math.min(o.xMax, Math.max(o.xMin, x)));
  const sx = (x: number) => m.left + ((lx(x) - Math.log10(o.xMin)) / (Math.log10(o.xMax) - Math.log10(o.xMin))) * w;
  const sy = (y: number) => m.top + (1 - (Math.min(o.yMax, Math.max(o.yMin, y)) - o.yMin) / (o.yMax - o.yMin)) * h;
  const f = (v: number) => v.toFixed(1);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
    `<text x="${m.left}" y="18" font-size="13" font-weight="bold">${escape(o.title)}</text>`,
    `<rect x="${m.left}" y="${m.top}" width="${w}" height="${h}" fill="none" stroke="#999"/>`,
  ];
  for (let e = Math.floor(Math.log10(o.xMin)); e <= Math.ceil(Math.log10(o.xMax)); e++) {
    for (const k of [1, 2, 5]) {
      const x = k * 10 ** e;
      if (x < o.xMin || x > o.xMax) continue;
      out.push(`<line x1="${f(sx(x))}" y1="${m.top}" x2="${f(sx(x))}" y2="${m.top + h}" stroke="#eee"/>`);
      out.push(`<text x="${f(sx(x))}" y="${m.top + h + 14}" text-anchor="middle">${x >= 1 ? x : x.toPrecision(1)}</text>`);
    }
  }
  const yStep = (o.yMax - o.yMin) / 5;
  for (let i = 0; i <= 5; i++) {
    const y = o.yMin + i * yStep;
    out.push(`<line x1="${m.left}" y1="${f(sy(y))}" x2="${m.left + w}" y2="${f(sy(y))}" stroke="#eee"/>`);
    out.push(`<text x="${m.left - 6}" y="${f(sy(y) + 4)}" text-anchor="end">${y.toFixed(2)}</text>`);
  }
  out.push(`<text x="${m.left + w / 2}" y="${height - 10}" text-anchor="middle">${escape(o.xLabel)}</text>`);
  out.push(`<text x="14" y="${m.top + h / 2}" text-anchor="middle" transform="rotate(-90 14 ${m.top + h / 2})">${escape(o.yLabel)}</text>`);
  if (o.target) {
    out.push(`<line x1="${m.left}" y1="${f(sy(o.target.y))}" x2="${m.left + w}" y2="${f(sy(o.target.y))}" stroke="#000" stroke-dasharray="5,4"/>`);
    out.push(`<text x="${m.left + 4}" y="${f(sy(o.target.y) - 4)}">${escape(o.target.label)}</text>`);
  }
  series.forEach((s, i) => {
    const color = PALETTE[i % PALETTE.length] as string;
    const d: string[] = [];
    let lastY: number | undefined;
    for (const [x, y] of s.points) {
      if (x > o.xMax) break;
      if (lastY === undefined) d.push(`M${f(sx(Math.max(x, o.xMin)))},${f(sy(y))}`);
      else d.push(`H${f(sx(x))}`, `V${f(sy(y))}`);
      lastY = y;
    }
    const end = s.points[s.points.length - 1];
    if (end) d.push(`H${f(sx(Math.min(o.xMax, Math.max(end[0], o.xMin))))}`);
    out.push(`<path d="${d.join(' ')}" fill="none" stroke="${color}" stroke-width="${s.emphasis ? 2.6 : 1.3}"/>`);
    const ly = m.top + 8 + i * 16;
    out.push(`<line x1="${m.left + w + 12}" y1="${ly}" x2="${m.left + w + 32}" y2="${ly}" stroke="${color}" stroke-width="${s.emphasis ? 2.6 : 1.3}"/>`);
    out.push(`<text x="${m.left + w + 36}" y="${ly + 4}">${escape(s.label)}</text>`);
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
