// The report page's inline stylesheet: one file, no external fonts or assets.

export const REPORT_CSS = `
:root { --fg: #1f2937; --muted: #6b7280; --line: #e5e7eb; --bg: #f6f7f9; --card: #fff; --accent: #2563eb; }
* { box-sizing: border-box; }
body { margin: 0; padding: 24px 28px 48px; background: var(--bg); color: var(--fg);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 16px; margin: 0 0 10px; }
.muted { color: var(--muted); }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(150px, 1fr)); gap: 10px; margin: 16px 0 20px; }
.stat { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px; }
.stat .label { color: var(--muted); font-size: 12px; }
.stat .value { font-size: 20px; font-weight: 600; }
.stat .sub { color: var(--muted); font-size: 12px; }
section { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 14px 16px; margin: 0 0 16px; }
.row { display: grid; grid-template-columns: repeat(auto-fit, minmax(460px, 1fr)); gap: 16px; }
.row > section { margin: 0 0 16px; }
.scroll { overflow: auto; max-height: 560px; }
.two-col { display: grid; grid-template-columns: minmax(280px, 1fr) minmax(320px, 1fr); gap: 16px; }
svg { display: block; max-width: 100%; height: auto; font-size: 11px; }
svg text { fill: var(--fg); }
svg .tick { fill: var(--muted); font-size: 10px; }
svg .axis-label { fill: var(--muted); font-size: 11px; }
svg .grid { stroke: var(--line); }
svg .axis { stroke: #9ca3af; }
.score-chart .best-line { fill: none; stroke: var(--accent); stroke-width: 2.2; }
.score-chart .score-dot { fill: #fff; stroke: #64748b; stroke-width: 1.4; }
.lineage .lineage-edge { fill: none; stroke: #94a3b8; stroke-width: 1.3; }
.lineage .lineage-edge.merge { stroke-dasharray: 4 3; stroke: #db2777; }
.lineage circle { stroke: #334155; stroke-width: 1; }
.lineage .best-ring { fill: none; stroke: var(--accent); stroke-width: 2.5; }
.lineage .idx { font-weight: 600; }
.lineage .best text { font-weight: 600; }
.lineage-node.dim { opacity: 0.35; }
.pareto-grid .best-here { fill: #111827; }
.pareto-grid .row-label.best { font-weight: 700; fill: var(--accent); }
.timeline .lane-bg { fill: #f3f4f6; }
svg.timeline .tick { font-size: 11px; }
.lineage-node { cursor: pointer; }
.lineage-node:focus { outline: none; }
.lineage-node:focus circle, .lineage-node.selected circle { stroke: var(--accent); stroke-width: 3; }
table.proposals td.reason { min-width: 160px; }
/* Fixed columns: one unbroken string in a row wraps inside its cell instead of widening the
   table for every row; ordinary text still wraps between words. */
table.valset-answers { width: 100%; table-layout: fixed; }
table.valset-answers th:nth-child(1) { width: 3em; }
table.valset-answers th:nth-child(2) { width: 28%; }
table.valset-answers th:nth-child(3) { width: 4.5em; }
table.valset-answers th:nth-child(4) { width: 36%; }
table.valset-answers td { vertical-align: top; overflow-wrap: anywhere; }
table.valset-answers pre.output { margin: 0; padding: 4px 6px; word-break: normal; overflow-wrap: anywhere; }
.pareto-legend .best-label { color: var(--accent); }
.legend-dot { display: inline-block; vertical-align: -1px; margin-right: 3px; }
tr.proposal.accepted td.stage { color: #15803d; font-weight: 600; }
tr.proposal.failed td.stage { color: #b91c1c; }
td.cost { white-space: nowrap; }
.legend { display: flex; flex-wrap: wrap; gap: 12px; margin: 0 0 8px; font-size: 12px; color: var(--muted); }
.swatch { display: inline-block; width: 11px; height: 11px; border-radius: 2px; margin-right: 5px; vertical-align: -1px; }
pre { white-space: pre-wrap; word-break: break-word; background: #f9fafb; border: 1px solid var(--line); border-radius: 6px;
  padding: 10px 12px; margin: 6px 0 12px; font: 12.5px/1.5 ui-monospace, "DejaVu Sans Mono", monospace; }
.diff ins { background: #dcfce7; color: #14532d; text-decoration: none; }
.diff del { background: #fee2e2; color: #7f1d1d; }
table { border-collapse: collapse; font-size: 12.5px; }
th, td { text-align: left; padding: 3px 10px 3px 0; border-bottom: 1px solid var(--line); }
td.num, th.num { text-align: right; }
.actor-tree, .actor-tree ul { list-style: none; margin: 0; padding-left: 18px; border-left: 1px dashed #cbd5e1; }
.actor-tree { border-left: none; padding-left: 0; }
.actor-tree li { margin: 3px 0; }
.actor-logic { font-weight: 600; }
code { font: 12px ui-monospace, "DejaVu Sans Mono", monospace; }
`;
