// The workbench's panels as HTML, from a RunView: the report's own panels (renderReportPanels, so
// every figure is computed by the report's code), and the workbench's: proposals in flight,
// failures and warnings, a candidate's detail (text, diff, the reflection that wrote it, its
// scores and cost), the links between a run and its branches, and the status line's figures.
// Which panels a change redraws, and which are heavy enough to redraw at most once a second.
import { buildActorTree, renderActorTree } from '../report/actorTree.js';
import { renderCandidateDetail } from '../report/candidatePanel.js';
import { escapeHtml } from '../report/htmlEscape.js';
import { scoreColor } from '../report/palette.js';
import { renderReportPanels, type ReportInput, type ReportPanel } from '../report/renderReport.js';
import { plural, stopText } from '../report/runWording.js';
import { dollars, totalCostText } from '../report/usageTable.js';
import { formatDuration, scheduleLabel } from '../runtimeModel/index.js';
import type { BranchLink, BranchRecord } from './runBranches.js';
import type { RunView, ViewTopic } from './runView.js';

/** The panels of the page, each a `data-panel` element. */
export const WORKBENCH_PANELS = [
  'cards', 'overTime', 'overCalls', 'lineage', 'pareto', 'timeline', 'inFlight', 'actors', 'notices', 'proposals',
  'modelUsage', 'bestCandidate', 'valsetAnswers', 'runtimeModel', 'links',
] as const;
export type WorkbenchPanel = (typeof WORKBENCH_PANELS)[number];

/** What each panel is drawn from. */
const DRAWN_FROM: Record<WorkbenchPanel, readonly ViewTopic[]> = {
  cards: ['pool', 'spend', 'status', 'slots', 'proposals', 'clock'],
  overTime: ['pool', 'status', 'clock'],
  overCalls: ['pool', 'spend', 'status'],
  lineage: ['pool'],
  pareto: ['pool'],
  timeline: ['slots', 'status'],
  inFlight: ['inFlight', 'status', 'clock'],
  actors: ['actors', 'status'],
  notices: ['notices'],
  proposals: ['proposals', 'status'],
  modelUsage: ['spend', 'status'],
  bestCandidate: ['status', 'pool'],
  valsetAnswers: ['status'],
  runtimeModel: ['status', 'slots'],
  links: ['links', 'status'],
};

/** Panels whose drawing grows with the run (every proposal, interval, actor or example): redrawn at most once a second. */
export const HEAVY_PANELS: ReadonlySet<WorkbenchPanel> = new Set(['pareto', 'timeline', 'actors', 'proposals', 'lineage']);

/** The panels a set of changes redraws. */
export function panelsFor(topics: ReadonlySet<ViewTopic>): Set<WorkbenchPanel> {
  return new Set(WORKBENCH_PANELS.filter((p) => DRAWN_FROM[p].some((t) => topics.has(t))));
}

const REPORT_PANEL_OF: Partial<Record<WorkbenchPanel, ReportPanel>> = {
  cards: 'cards', overTime: 'overTime', overCalls: 'overCalls', lineage: 'lineage', pareto: 'pareto', timeline: 'timeline',
  proposals: 'proposals', modelUsage: 'modelUsage', bestCandidate: 'bestCandidate', valsetAnswers: 'valsetAnswers', runtimeModel: 'runtimeModel',
};

/** What the panels need besides the view: the title, the links, whether report.html is there. */
export interface PanelContext {
  title: string;
  origin?: BranchRecord;
  branches: readonly BranchLink[];
  /** The branch's origin's run id under the root, when the workbench serves it. */
  originRun?: string;
  hasReport: boolean;
  /** Not served: the run's process alone saw it (run --ui / serveWorkbench show it). */
  liveOnly: boolean;
}

const over = (view: RunView) => view.result !== undefined;

/** The panels in `ids` for the run as it stands. */
export function renderPanels(view: RunView, ids: ReadonlySet<WorkbenchPanel>, context: PanelContext): Partial<Record<WorkbenchPanel, string>> {
  const input = view.reportInput(context.title);
  const wanted = new Set<ReportPanel>();
  for (const id of ids) {
    const report = REPORT_PANEL_OF[id];
    if (report && !finishedOnly(id, view, input, context)) wanted.add(report);
  }
  const report = renderReportPanels(input, wanted, true);
  const out: Partial<Record<WorkbenchPanel, string>> = {};
  for (const id of ids) {
    const fromReport = REPORT_PANEL_OF[id];
    if (fromReport && wanted.has(fromReport)) out[id] = report[fromReport] ?? '';
    else out[id] = ownPanel(id, view, input, context);
  }
  return out;
}

/** A report panel the workbench shows only when its input is the report's own (or the run is over). */
function finishedOnly(id: WorkbenchPanel, view: RunView, input: ReportInput, context: PanelContext): boolean {
  if (view.finishedInput) return false;
  if (id === 'bestCandidate') return !over(view);
  if (id === 'valsetAnswers') return true;
  if (id === 'runtimeModel') return !over(view) || input.slotIntervals.length === 0;
  if (id === 'timeline') return input.slotIntervals.length === 0;
  if (id === 'modelUsage') return context.liveOnly && input.modelUsage?.length === 0;
  return false;
}

const reportLink = (context: PanelContext) => (context.hasReport ? ' <a class="report-link" data-href="report.html" target="_blank" rel="noopener">Open report.html</a>' : '');

function ownPanel(id: WorkbenchPanel, view: RunView, input: ReportInput, context: PanelContext): string {
  switch (id) {
    case 'inFlight':
      return renderInFlight(view, context);
    case 'notices':
      return renderNotices(view);
    case 'actors': {
      if (view.finishedInput?.inspection) return renderActorTree(buildActorTree(view.finishedInput.inspection));
      const tree = view.actorTree();
      return tree
        ? renderActorTree(tree)
        : '<p class="muted">The actor system is seen from inside the run: run it with <code>--ui</code>, or with <code>--inspect</code> (its inspect.jsonl is followed here).</p>';
    }
    case 'links':
      return renderLinks(context);
    case 'bestCandidate':
      return '<p class="muted">Shown when the run is over; until then, click a node of the lineage.</p>';
    case 'valsetAnswers':
      return `<p class="muted">The best candidate's answer on each valset example is recorded by the run's own process, in report.html.${reportLink(context)}</p>`;
    case 'runtimeModel':
      return `<p class="muted">The runtime model is compared with the measured run once it is over, from the worker slots${input.slotIntervals.length === 0 ? ', which only the run\'s own process sees (<code>--ui</code>, or <code>--inspect</code>)' : ''}.${reportLink(context)}</p>`;
    case 'timeline':
      return '<p class="muted">The worker slots are seen from inside the run: run it with <code>--ui</code> (<code>gepa-actors run --ui</code>, <code>demo --ui</code>, or <code>serveWorkbench</code>), or with <code>--inspect</code> (its activity.jsonl is followed here).</p>';
    case 'modelUsage':
      return '<p class="muted">Tokens and dollars per model are read from the run directory\'s log; this run has none.</p>';
    default:
      return '';
  }
}

function renderInFlight(view: RunView, context: PanelContext): string {
  if (view.inFlight.size === 0) {
    if (context.liveOnly && !view.result) return '<p class="muted">Proposals in flight are seen from inside the run: run it with <code>--ui</code>, or with <code>--inspect</code> (its activity.jsonl is followed here).</p>';
    return `<p class="muted">${view.result ? 'The run is over: nothing in flight.' : 'No proposal in flight.'}</p>`;
  }
  const now = view.elapsedMs();
  const rows = [...view.inFlight.values()]
    .sort((a, b) => a.step - b.step || a.task - b.task)
    .map((p) => {
      const shared = p.siblingOf !== undefined ? ` (parent evaluation of ${p.siblingOf})` : '';
      const from = p.merge ? `merge of ${p.merge.map((i) => `#${i}`).join(' + ')}` : p.parent !== undefined ? `#${p.parent}${shared}` : '';
      const name = view.schedule?.kind === 'async' ? String(p.step) : `${p.step}.${p.task}`;
      return `<tr><td class="num">${name}</td><td>${escapeHtml(from)}</td><td class="stage stage-${escapeHtml(p.stage.replace(/ /g, '-'))}">${escapeHtml(p.stage)}</td><td class="num">${escapeHtml(formatDuration(Math.max(0, now - p.startedMs)))}</td></tr>`;
    });
  const reserved = view.reserved > 0 ? `; ${plural(view.reserved, 'metric call')} reserved for them` : '';
  return `<p class="muted">${plural(view.inFlight.size, 'proposal')} in flight${reserved}.</p><table class="in-flight"><thead><tr><th class="num">proposal</th><th>parent</th><th>doing</th><th class="num">for</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function renderNotices(view: RunView): string {
  if (view.noticeCount === 0) return '<p class="muted">No failures or warnings so far.</p>';
  const counts = new Map<string, number>();
  for (const n of view.notices) counts.set(n.level, (counts.get(n.level) ?? 0) + 1);
  const shown = view.notices.length < view.noticeCount ? ` (the latest ${view.notices.length} of ${view.noticeCount})` : '';
  const items = [...view.notices]
    .reverse()
    .map((n) => {
      const when = n.atMs !== undefined ? `<span class="when">${escapeHtml(formatDuration(n.atMs))}</span>` : '';
      const kind = n.kind ? `<span class="kind">${escapeHtml(n.kind)}</span>` : '';
      const systemic = n.systemic ? '<strong class="systemic">stopped the run</strong>' : '';
      return `<li class="notice ${n.level}">${when}<span class="level">${n.level}</span>${kind}${systemic}<span class="message">${escapeHtml(n.message)}</span></li>`;
    })
    .join('');
  const summary = [...counts.entries()].map(([level, n]) => plural(n, level === 'retry' ? 'retry' : level)).join(', ');
  return `<p class="muted">${escapeHtml(summary)}${escapeHtml(shown)}, newest first.</p><ul class="notices">${items}</ul>`;
}

function changesText(changes: BranchRecord['changes']): string {
  const parts = [
    ...(changes.budget !== undefined ? [`budget ${changes.budget}`] : []),
    ...(changes.schedule !== undefined ? [`schedule ${changes.schedule}`] : []),
    ...(changes.reflectionModel !== undefined ? [`reflection model ${changes.reflectionModel}`] : []),
  ];
  return parts.length > 0 ? parts.join(', ') : 'the same settings';
}

function renderLinks(context: PanelContext): string {
  const parts: string[] = [];
  if (context.origin) {
    const o = context.origin;
    const target = context.originRun !== undefined ? `<a data-run="${escapeHtml(context.originRun)}" href="#">its origin run</a>` : 'its origin run (two folders up)';
    parts.push(`<p class="origin">Branch ${o.n} of ${target}: started from candidate #${o.candidate}${o.score !== undefined ? ` (valset ${o.score.toFixed(3)})` : ''} with ${escapeHtml(changesText(o.changes))}.</p>`);
  }
  if (context.branches.length > 0) {
    const items = context.branches
      .map((b) => `<li><a data-run="${escapeHtml(b.dir)}" href="#">branch ${b.n}</a>: from candidate #${b.candidate}${b.score !== undefined ? ` (${b.score.toFixed(3)})` : ''}, ${escapeHtml(changesText(b.changes))} <span class="muted">${escapeHtml(b.createdAt)}</span></li>`)
      .join('');
    parts.push(`<ul class="branches">${items}</ul>`);
  }
  return parts.length > 0 ? parts.join('') : '<p class="muted">No branches: choose a candidate in the lineage and press "Branch from here".</p>';
}

/** The status line: where the run stands, in figures the page shows at the top. */
export interface WorkbenchStatus {
  title: string;
  status: string;
  stopText?: string;
  bestScore?: number;
  bestIndex: number;
  candidates: number;
  metricCalls: number;
  budget?: number;
  costText: string;
  elapsed: string;
  inFlight: number;
  workers?: number;
  schedule?: string;
  noticeCount: number;
  /** What the run is, in words. */
  subtitle: string;
}

export function statusOf(view: RunView, title: string): WorkbenchStatus {
  const usage = view.modelUsage();
  return {
    title,
    subtitle: subtitle(view),
    status: view.status,
    ...(view.stopReason ? { stopText: stopText(view.stopReason, view.result?.stoppedBy) } : {}),
    ...(view.bestScore !== undefined ? { bestScore: view.bestScore } : {}),
    bestIndex: view.bestIndex,
    candidates: view.candidates.filter((c) => c.valScore !== undefined).length,
    metricCalls: view.metricCalls,
    ...(view.budget !== undefined ? { budget: view.budget } : {}),
    costText: usage.length > 0 ? totalCostText(view.costUsd, usage) : dollars(view.costUsd),
    elapsed: formatDuration(view.elapsedMs()),
    inFlight: view.inFlight.size,
    ...(view.workers !== undefined ? { workers: view.workers } : {}),
    ...(view.schedule ? { schedule: scheduleLabel(view.schedule) } : {}),
    noticeCount: view.noticeCount,
  };
}

/** Candidate `i` in full: the report's text and diff, how it was made, its scores and what it cost. */
export function renderCandidate(view: RunView, i: number): string | undefined {
  const c = view.candidates[i];
  if (!c?.candidate) return undefined;
  const candidates = view.candidates.map((x) => x.candidate ?? {});
  const body = renderCandidateDetail({ candidates, parents: view.candidates.map((x) => x.parents), valScores: view.candidates.map((x) => x.valScore ?? 0), bestIndex: view.bestIndex }, i);
  const made =
    c.parents.length === 0
      ? 'The seed candidate.'
      : `Found after ${plural(c.metricCalls ?? 0, 'metric call')} and ${formatDuration(c.elapsedMs ?? 0)}${c.step !== undefined ? `, by proposal ${view.schedule?.kind === 'async' ? c.step : `${c.step}.${c.task}`}` : ''}.`;
  const scores = c.valSubscores?.length
    ? `<div class="score-strip" aria-label="score on each valset example">${c.valSubscores
        .map((s, j) => `<span class="cell" style="background:${scoreColor(s)}" title="valset example ${j}: ${s.toFixed(3)}"></span>`)
        .join('')}</div><p class="muted">valset mean ${(c.valScore ?? 0).toFixed(3)} over ${plural(c.valSubscores.length, 'example')}; ${c.valSubscores.filter((s) => s >= 1).length} fully right.</p>`
    : '';
  return `<div class="candidate-detail" data-index="${i}">${body}<p class="made">${escapeHtml(made)}</p>${scores}${renderReflection(view, c)}${renderCost(view, c)}</div>`;
}

function renderReflection(view: RunView, c: RunView['candidates'][number]): string {
  if (c.parents.length === 0) return '';
  if (c.parents.length > 1) return '<h4>How it was made</h4><p class="muted">A merge: each component taken from one of its parents; no reflection.</p>';
  const prompts = Object.entries(c.prompts ?? {});
  if (prompts.length === 0) {
    return c.newTexts
      ? `<h4>The reflection</h4><p class="muted">Written by a proposeNewTexts of your own (no prompt recorded).</p>`
      : '<h4>The reflection</h4><p class="muted">Its prompt is recorded with candidates that joined the pool in this version of gepa-actors (log.jsonl\'s candidate records).</p>';
  }
  const blocks = prompts.map(([component, prompt]) => {
    const reply = view.replyTo(prompt);
    const replyText = reply?.text ?? c.newTexts?.[component];
    const cost = reply?.costUsd !== undefined ? `, ${dollars(reply.costUsd)}` : '';
    const tokens = reply?.usage ? `, ${reply.usage.promptTokens.toLocaleString('en-US')} + ${reply.usage.completionTokens.toLocaleString('en-US')} tokens` : '';
    return (
      `<details class="reflection"><summary>The reflection prompt for <code>${escapeHtml(component)}</code> (${prompt.length.toLocaleString('en-US')} characters)</summary><pre class="prompt">${escapeHtml(prompt)}</pre></details>` +
      `<details class="reflection" open><summary>${reply ? `The reply${escapeHtml(cost + tokens)}` : 'The new text it gave'}</summary><pre class="reply">${escapeHtml(replyText ?? '(not recorded)')}</pre></details>`
    );
  });
  return `<h4>The reflection that wrote it</h4>${blocks.join('')}`;
}

function renderCost(view: RunView, c: RunView['candidates'][number]): string {
  const cost = c.candidate ? view.candidateCost(c.candidate) : undefined;
  const reflections = Object.values(c.prompts ?? {}).map((p) => view.replyTo(p)).filter((r) => r !== undefined);
  if (!cost && reflections.length === 0) return '';
  const priced = (cost && cost.unpriced < cost.calls) || reflections.some((r) => r.costUsd !== undefined);
  const usd = (cost?.costUsd ?? 0) + reflections.reduce((n, r) => n + (r.costUsd ?? 0), 0);
  const tokens = (cost?.inputTokens ?? 0) + (cost?.outputTokens ?? 0) + reflections.reduce((n, r) => n + (r.usage ? r.usage.promptTokens + r.usage.completionTokens : 0), 0);
  const calls = cost ? `its ${plural(cost.calls, 'metric call')}` : 'no metric call logged';
  const what = `${calls}${reflections.length > 0 ? ` and ${plural(reflections.length, 'reflection')}` : ''}`;
  return `<h4>What it cost</h4><p>${priced ? escapeHtml(dollars(usd)) : 'unpriced'} for ${escapeHtml(what)}${tokens > 0 ? ` (${tokens.toLocaleString('en-US')} tokens)` : ''}.</p>`;
}

/** The title line under the heading: what the run is, in words. */
export function subtitle(view: RunView): string {
  const parts = [
    plural(view.candidates.filter((c) => c.valScore !== undefined).length, 'candidate'),
    ...(view.schedule ? [`${scheduleLabel(view.schedule)}`] : []),
    ...(view.workers !== undefined ? [plural(view.workers, 'worker slot')] : []),
    ...(view.stopReason ? [stopText(view.stopReason, view.result?.stoppedBy)] : []),
  ];
  return parts.join(', ');
}
