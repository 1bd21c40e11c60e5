// report.html: one self-contained page (inline CSS, SVG and a few lines of JS; no network) that
// shows how a run went: best score over wall-clock and metric calls, the lineage tree, the
// per-example Pareto front, the worker-slot timeline, any candidate's text and diff from its
// parent (click the lineage), the proposals with their outcomes, the best candidate's answers on
// the valset, tokens and dollars per model, the runtime model's prediction against the measured
// wall-clock, and the actor tree. Each panel is its own module; this one lays out the page.
// Room report/: imported by the package entries and the command (src/cli/); it reads the rooms below.
import { plural, signedPercent, stopText, tooLongText } from './runWording.js';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { formatDuration, scheduleLabel, type ModelSchedule } from '../runtimeModel/index.js';
import { formatStaleness, summarizeStaleness } from './stalenessSummary.js';
import { formatScheduleDecision } from './scheduleDecisions.js';
import type { Candidate } from '../gepa/core/adapter.js';
import type { OptimizeResult } from '../gepa/core/optimizeResult.js';
import type { SlotInterval } from '../evaluation/workerSlots.js';
import { STRING_COMPONENT } from '../adapters/anything/anythingOptions.js';
import { buildActorTree, renderActorTree } from './actorTree.js';
import { escapeHtml } from './htmlEscape.js';
import type { InspectionRecord } from './inspectionLog.js';
import { renderLineageTree } from './lineageTree.js';
import { perExampleFront, renderParetoGrid, renderParetoLegend } from './paretoGrid.js';
import { REPORT_CSS } from './reportStyle.js';
import { checkRuntimeModel, type RuntimeCheck } from './runtimeCheck.js';
import { renderScoreChart, type ScorePoint } from './scoreChart.js';
import { renderSlotTimeline } from './slotTimeline.js';
import { CANDIDATE_PANEL_SCRIPT, diffHtml, renderCandidatePanel } from './candidatePanel.js';
import type { ModelUsage } from './modelUsage.js';
import { renderProposalTable } from './proposalTable.js';
import type { ObservationSource, ValsetAnswer } from './runObserver.js';
import { renderUsageTable, totalCostText } from './usageTable.js';
import { renderValsetAnswers } from './valsetAnswers.js';
import { checkReportInput } from './reportInput.js';
import { formatFailureCounts } from '../evaluation/failureTally.js';

export const REPORT_FILE = 'report.html';

/** optimizeAnything's result for a string seed: every candidate is the artifact's text. */
export type StringArtifactResult = Omit<OptimizeResult, 'candidates' | 'bestCandidate'> & {
  /** Every candidate's text, in the order the candidates joined the pool (the seed first). */
  candidates: readonly string[];
  /** The text of the candidate with the best valset mean. */
  bestCandidate: string;
};

/** What report.html is drawn from (renderReport, writeReport). */
export interface ReportInput {
  /** The page's title. */
  title: string;
  /** optimize()'s result, or optimizeAnything's (a string seed's string candidates included). */
  result: OptimizeResult | StringArtifactResult;
  /** The run's worker slots. */
  workers: number;
  /** The run's schedule (the runtime model predicts it beside the measured wall-clock). */
  schedule: ModelSchedule;
  /** The run's reflectionMinibatchSize. */
  minibatchSize: number;
  /** maxMetricCalls, when the run had one. */
  budget?: number;
  /** What each worker slot ran, when (onSlotInterval): the timeline. */
  slotIntervals: readonly SlotInterval[];
  /** Clock time at the start of the run (the slot intervals are on the same clock). */
  runStartedAt: number;
  /** XState inspection records, when the run was inspected: the actor tree is drawn from them. */
  inspection?: readonly InspectionRecord[];
  /** More facts for the summary, e.g. the held-out test score. */
  facts?: ReadonlyArray<{
    /** The card's label. */
    label: string;
    /** Its value. */
    value: string;
    /** A line under the value. */
    sub?: string;
  }>;
  /** Tokens and dollars per model (runObserver.ts); without it the panel says "not recorded". */
  modelUsage?: readonly ModelUsage[];
  /** The best candidate on each valset example, in valset order (runObserver.ts). */
  valsetAnswers?: readonly ValsetAnswer[];
  /** Where modelUsage and valsetAnswers come from (RunObservation.source); default 'this process'. */
  observedFrom?: ObservationSource;
}

const score = (x: number) => x.toFixed(3);
const percent = (x: number) => `${Math.round(x * 100)}%`;

function stat(label: string, value: string, sub?: string): string {
  return `<div class="stat"><div class="label">${escapeHtml(label)}</div><div class="value">${escapeHtml(value)}</div>${sub ? `<div class="sub">${escapeHtml(sub)}</div>` : ''}</div>`;
}

/** With a holdout set: the best candidate's holdout score beside its valset score, or why the set was not scored. */
function holdoutCard(r: ReportInput['result']): string[] {
  const h = r.holdout;
  if (!h) return [];
  if (r.holdoutScore === undefined) return [stat('holdout score', 'not scored', h.skipped ?? 'no holdout evaluation completed')];
  const others = h.candidates.map((c, i) => (c === r.bestIndex ? '' : `#${c} ${score(h.scores[i] ?? 0)}`)).filter((t) => t !== '');
  return [stat('holdout score', score(r.holdoutScore), `candidate #${r.bestIndex} of the front's ${h.candidates.length} best scored${others.length > 0 ? `; ${others.join(', ')}` : ''}`)];
}

function summaryCards(input: ReportInput): string {
  const r = input.result;
  const staleness = summarizeStaleness(r.proposals);
  return [
    stat('best valset score', score(r.bestScore), `candidate #${r.bestIndex}${r.holdoutScore !== undefined ? ', chosen on the holdout set' : ''}`),
    ...holdoutCard(r),
    stat('seed valset score', score(r.valScores[0] ?? 0)),
    ...(input.facts ?? []).map((f) => stat(f.label, f.value, f.sub)),
    stat('metric calls', String(r.metricCalls), input.budget !== undefined ? `of a budget of ${input.budget}` : undefined),
    stat('candidates', String(r.candidates.length), `${r.proposals.length} proposals, ${r.reflectionCalls} reflections`),
    stat('wall-clock', formatDuration(r.elapsedMs), `stop: ${r.stopReason}`),
    stat('worker utilization', percent(r.workerUtilization), `${input.workers} slots, ${scheduleLabel(input.schedule)}`),
    // Schedule 'auto': each shape it chose, with why.
    ...(r.scheduleDecisions ?? []).map((d, i) => stat(i === 0 ? 'schedule auto chose' : 'schedule auto changed to', `async ${d.shape.inFlight}`, formatScheduleDecision(d))),
    ...(staleness.max > 0 ? [stat('staleness', `median ${staleness.median}`, `candidates that joined while a proposal ran: ${formatStaleness(staleness)}`)] : []),
    stat('cost', totalCostText(r.costUsd, input.modelUsage)),
    // Failed calls scored 0: a reader must see that the scores are not the model's own.
    ...(r.failures && r.failures.total > 0 ? [stat('failed calls', String(r.failures.total), formatFailureCounts(r.failures).replace(/^[^:]*: /, ''))] : []),
    ...(r.tooLong ? [stat('too long', String(r.tooLong.textsSentBack), tooLongText(r.tooLong))] : []),
    ...(r.error !== undefined ? [stat('stopped by an error', r.stopReason, r.error)] : []),
  ].join('');
}

function discoveryPoints(r: OptimizeResult, x: (i: number) => number): ScorePoint[] {
  return r.candidates.map((_, i) => ({ index: i, x: x(i), score: r.valScores[i] ?? 0 }));
}

/**
 * The result with named texts throughout: a string artifact's text becomes its one component,
 * named as optimizeAnything names it, and is shown as "the artifact".
 */
function withNamedTexts(result: OptimizeResult | StringArtifactResult): { r: OptimizeResult; artifact: boolean } {
  if (typeof result.bestCandidate !== 'string') {
    // Named texts with only optimizeAnything's string component: a string seed's run as the CLI records it.
    const names = Object.keys(result.bestCandidate);
    return { r: result as OptimizeResult, artifact: names.length === 1 && names[0] === STRING_COMPONENT };
  }
  const named = (text: string): Candidate => ({ [STRING_COMPONENT]: text });
  const strings = result as StringArtifactResult;
  return { r: { ...strings, candidates: strings.candidates.map(named), bestCandidate: named(strings.bestCandidate) }, artifact: true };
}

function candidateSection(r: OptimizeResult, artifact: boolean): string {
  const seed = r.candidates[0] ?? {};
  const best = r.bestCandidate;
  const components = Object.keys(best);
  const blocks = components.map((name) => {
    const before = seed[name] ?? '';
    const after = best[name] ?? '';
    const diff = diffHtml(before, after);
    const heading = components.length > 1 ? `<h3>${escapeHtml(name)}</h3>` : '';
    const label = artifact ? `the best artifact, candidate #${r.bestIndex}` : `best candidate #${r.bestIndex}: <code>${escapeHtml(name)}</code>`;
    return `${heading}<div class="two-col"><div><div class="muted">${label}</div><pre class="best-text">${escapeHtml(after)}</pre></div><div><div class="muted">diff from the seed (<ins>inserted</ins>, <del>deleted</del>)</div><pre class="diff">${diff}</pre></div></div>`;
  });
  return blocks.join('');
}

function runtimeSection(check: RuntimeCheck, schedule: ModelSchedule): string {
  if (!check.ok) return `<p class="muted">No prediction: ${escapeHtml(check.reason)}.</p>`;
  const p = check.params;
  const pr = check.prediction;
  const errorText = signedPercent(check.relativeError);
  const rows: Array<[string, string, string]> = [
    ['wall-clock', formatDuration(pr.wallClockMs), formatDuration(check.measuredMs)],
    ['worker utilization', percent(pr.utilization), percent(check.measuredUtilization)],
  ];
  const table = rows.map(([k, a, b]) => `<tr><td>${escapeHtml(k)}</td><td class="num">${escapeHtml(a)}</td><td class="num">${escapeHtml(b)}</td></tr>`).join('');
  // In words: a reader of the report has not read the paper's symbols (T_e, T_r, V, b).
  const [low, high] = p.jitter ?? [1, 1];
  const inputs = [
    `schedule ${scheduleLabel(schedule)} on ${plural(p.workers, 'worker slot')}, a valset of ${plural(p.valsetSize, 'example')}, minibatches of ${plural(p.minibatchSize, 'example')}, a budget of ${p.budget} metric calls`,
    `${formatDuration(p.metricCallMs)} per metric call and ${formatDuration(p.reflectionMs)} per reflection on average, call times spread from ${low.toFixed(2)} to ${high.toFixed(2)} times the average`,
    `${percent(p.acceptanceRate)} of the judged proposals accepted, ${percent(p.skipRate ?? 0)} skipped (parent already perfect on its minibatch)`,
    ...(p.rebaseRate ? [`${percent(p.rebaseRate)} of the proposals rebased onto a newer best and judged again, on ${(p.rebaseGateExamples ?? p.minibatchSize).toFixed(1)} examples on average`] : []),
  ];
  return (
    `<p class="runtime-work">Predicted for <strong>${p.budget} metric calls</strong>: ${escapeHtml(check.workNote)}.</p>` +
    `<table class="runtime"><thead><tr><th></th><th class="num">predicted</th><th class="num">measured</th></tr></thead><tbody>${table}</tbody></table>` +
    `<p>The model is off by <strong class="runtime-error">${escapeHtml(errorText)}</strong> (positive: predicted slower than measured); ` +
    `it sees the run as <strong>${escapeHtml(pr.bottleneck === 'workers' ? 'bound by the worker slots' : 'bound by latency')}</strong>.</p>` +
    `<p class="muted">Measured inputs: ${inputs.map(escapeHtml).join('; ')}. Merges are not modelled.</p>`
  );
}

// Hovering a lineage node dims everything but its ancestry.
const LINEAGE_SCRIPT = `
(() => {
  const parents = JSON.parse(document.getElementById('lineage-parents').textContent);
  const nodes = [...document.querySelectorAll('.lineage-node')];
  const ancestry = (i, seen = new Set()) => { if (seen.has(i)) return seen; seen.add(i); for (const p of parents[i] || []) ancestry(p, seen); return seen; };
  for (const node of nodes) {
    node.addEventListener('mouseenter', () => { const keep = ancestry(Number(node.dataset.index)); for (const n of nodes) n.classList.toggle('dim', !keep.has(Number(n.dataset.index))); });
    node.addEventListener('mouseleave', () => { for (const n of nodes) n.classList.remove('dim'); });
  }
})();
`;

/** JSON inside <script>: "<" escaped so no text can close the element. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

/** The report's panels, each one section's inner HTML; the workbench (src/workbench/) shows the same ones. */
export const REPORT_PANELS = ['cards', 'overTime', 'overCalls', 'lineage', 'pareto', 'timeline', 'bestCandidate', 'candidates', 'proposals', 'valsetAnswers', 'modelUsage', 'runtimeModel', 'actors'] as const;
export type ReportPanel = (typeof REPORT_PANELS)[number];

/**
 * The panels' HTML for `input` (only those in `only`): every figure of report.html is computed
 * here, for the report and the workbench alike, so the two cannot disagree. Throws ConfigError
 * naming the field when `input` is not a ReportInput (unless `checked`: the caller built it). `actors`
 * is empty without inspection records.
 */
export function renderReportPanels(input: ReportInput, only: ReadonlySet<ReportPanel> = new Set(REPORT_PANELS), checked = false): Partial<Record<ReportPanel, string>> {
  // `checked`: the caller built the input itself (the workbench, several times a second); a user's is checked.
  if (!checked) checkReportInput(input);
  const { r, artifact } = withNamedTexts(input.result);
  let front: Set<number> | undefined;
  const frontOf = () => (front ??= perExampleFront(r.valSubscores).front);
  const panels: { [K in ReportPanel]: () => string } = {
    cards: () => summaryCards(input),
    overTime: () =>
      renderScoreChart({ id: 'score-over-time', points: discoveryPoints(r, (i) => r.discoveryElapsedMs[i] ?? 0), xEnd: r.elapsedMs, xLabel: 'wall-clock', formatX: formatDuration }),
    overCalls: () =>
      renderScoreChart({ id: 'score-over-calls', points: discoveryPoints(r, (i) => r.discoveryMetricCalls[i] ?? 0), xEnd: r.metricCalls, xLabel: 'metric calls', formatX: (x) => String(Math.round(x)) }),
    lineage: () => renderLineageTree({ parents: r.parents, valScores: r.valScores, bestIndex: r.bestIndex, front: frontOf() }),
    pareto: () => `${renderParetoLegend()}<div class="scroll">${renderParetoGrid(r.valSubscores, r.valScores, r.bestIndex)}</div>`,
    timeline: () => renderSlotTimeline({ intervals: input.slotIntervals, workers: input.workers, startedAt: input.runStartedAt, elapsedMs: r.elapsedMs, formatTime: formatDuration }),
    bestCandidate: () => candidateSection(r, artifact),
    candidates: () => renderCandidatePanel(r),
    proposals: () => renderProposalTable(r.proposals, input.schedule.kind === 'async'),
    valsetAnswers: () => renderValsetAnswers(input.valsetAnswers, r.bestIndex, input.observedFrom),
    modelUsage: () => renderUsageTable(input.modelUsage, input.observedFrom),
    runtimeModel: () =>
      runtimeSection(
        checkRuntimeModel({
          result: r,
          intervals: input.slotIntervals,
          workers: input.workers,
          schedule: input.schedule,
          minibatchSize: input.minibatchSize,
          ...(input.budget !== undefined ? { budget: input.budget } : {}),
        }),
        input.schedule,
      ),
    actors: () => (input.inspection ? renderActorTree(buildActorTree(input.inspection)) : ''),
  };
  return Object.fromEntries(REPORT_PANELS.filter((id) => only.has(id)).map((id) => [id, panels[id]()]));
}

/** The page; throws ConfigError naming the field when `input` is not a ReportInput (e.g. a mistyped result). */
export function renderReport(input: ReportInput): string {
  const p = renderReportPanels(input) as Record<ReportPanel, string>;
  const { r } = withNamedTexts(input.result);
  const actorSection = input.inspection ? `<section id="actors"><h2>Actor tree (from the XState inspection events)</h2>${p.actors}</section>` : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(input.title)}</title><style>${REPORT_CSS}</style></head>
<body>
<h1>${escapeHtml(input.title)}</h1>
<div class="muted">gepa-actors run report: ${plural(r.candidates.length, 'candidate')}, ${escapeHtml(stopText(r.stopReason, r.stoppedBy))}</div>
<div class="cards">${p.cards}</div>
<div class="row">
<section id="over-time"><h2>Best valset score over wall-clock</h2>${p.overTime}</section>
<section id="over-calls"><h2>Best valset score over metric calls</h2>${p.overCalls}</section>
</div>
<div class="row">
<section id="lineage"><h2>Candidate lineage</h2><p class="muted">${LINEAGE_CAPTION}</p><div class="scroll">${p.lineage}</div></section>
<section id="pareto"><h2>Per-example Pareto front</h2><p class="muted">Rows: candidates; columns: valset examples.</p>${p.pareto}</section>
</div>
<section id="timeline"><h2>Worker slots</h2>${p.timeline}</section>
<section id="best-candidate"><h2>Best candidate</h2>${p.bestCandidate}</section>
<section id="candidate"><h2>Any candidate: its text and its diff from its parent</h2>${p.candidates}</section>
<section id="proposals"><h2>Proposals</h2>${p.proposals}</section>
<section id="valset-answers"><h2>The best candidate on the valset</h2>${p.valsetAnswers}</section>
<section id="model-usage"><h2>Tokens and cost per model</h2>${p.modelUsage}</section>
<section id="runtime-model"><h2>Runtime model: predicted vs measured</h2>${p.runtimeModel}</section>
${actorSection}
<script type="application/json" id="lineage-parents">${scriptJson(r.parents)}</script>
<script>${LINEAGE_SCRIPT}${CANDIDATE_PANEL_SCRIPT}</script>
</body></html>
`;
}

/** What the lineage tree's marks mean (the report and the workbench say it the same way). */
export const LINEAGE_CAPTION = "Each candidate under its parent, coloured by valset score (red: this run's lowest, green: its highest); ◆ on the Pareto front, ★ best, dashed: a merge's second parent.";

/** Writes report.html into `dir` (created if needed) and returns its path. */
export async function writeReport(dir: string, input: ReportInput): Promise<string> {
  await mkdir(dir, { recursive: true });
  const path = join(dir, REPORT_FILE);
  await writeFile(path, renderReport(input), 'utf8');
  return path;
}
