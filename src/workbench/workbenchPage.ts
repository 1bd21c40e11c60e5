// The workbench's page: one HTML document with the report's stylesheet and a little more, its
// panels drawn on the server (so the first paint already shows the run, without a script), and a
// small script that keeps them current from the server-sent events, opens a candidate when a
// node of the lineage or a row of the Pareto grid is chosen, and sends the controls. No asset
// is fetched from anywhere: the page, its events and its JSON come from this server alone.
import { escapeHtml } from '../report/htmlEscape.js';
import { LINEAGE_CAPTION } from '../report/renderReport.js';
import { REPORT_CSS } from '../report/reportStyle.js';
import type { WorkbenchPanel, WorkbenchStatus } from './workbenchPanels.js';

const WORKBENCH_CSS = `
body { padding: 0 0 48px; }
main { padding: 16px 28px 0; }
.wb-head { position: sticky; top: 0; z-index: 5; display: flex; flex-wrap: wrap; align-items: center; gap: 10px 22px; padding: 12px 28px;
  background: #fff; border-bottom: 1px solid var(--line); box-shadow: 0 1px 6px rgba(15, 23, 42, 0.06); }
.wb-title { min-width: 220px; flex: 1 1 260px; }
.wb-title h1 { font-size: 18px; margin: 0; display: flex; align-items: center; gap: 10px; }
.wb-title .muted { font-size: 12px; overflow-wrap: anywhere; }
.pill { display: inline-block; font-size: 12px; font-weight: 600; padding: 2px 10px; border-radius: 999px; background: #e5e7eb; color: #374151; text-transform: uppercase; letter-spacing: 0.03em; }
.pill.running { background: #dbeafe; color: #1d4ed8; }
.pill.running::before { content: ""; display: inline-block; width: 7px; height: 7px; margin-right: 6px; border-radius: 50%; background: currentColor; animation: wb-pulse 1.2s infinite; vertical-align: 1px; }
.pill.draining, .pill.stopping { background: #fef3c7; color: #92400e; }
.pill.finished { background: #dcfce7; color: #166534; }
.pill.stopped, .pill.interrupted { background: #f3f4f6; color: #374151; }
.pill.failed { background: #fee2e2; color: #991b1b; }
@keyframes wb-pulse { 50% { opacity: 0.25; } }
@media (prefers-reduced-motion: reduce) { .pill.running::before { animation: none; } }
.wb-figures { display: flex; flex-wrap: wrap; gap: 18px; align-items: flex-end; }
.fig .label { display: block; color: var(--muted); font-size: 11px; text-transform: uppercase; letter-spacing: 0.04em; }
.fig .value { display: block; font-size: 20px; font-weight: 650; font-variant-numeric: tabular-nums; }
.fig.best .value { font-size: 26px; color: var(--accent); }
.fig .sub { display: block; color: var(--muted); font-size: 12px; }
.bar { width: 150px; height: 6px; border-radius: 3px; background: #e5e7eb; overflow: hidden; margin-top: 3px; }
.bar > div { height: 100%; width: 0; background: var(--accent); transition: width 0.3s; }
.wb-controls { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; }
button { font: inherit; font-size: 13px; padding: 5px 12px; border-radius: 6px; border: 1px solid #cbd5e1; background: #fff; color: var(--fg); cursor: pointer; }
button:hover:not(:disabled) { border-color: var(--accent); color: var(--accent); }
button:disabled { opacity: 0.45; cursor: not-allowed; }
button.primary { background: var(--accent); border-color: var(--accent); color: #fff; }
button.primary:hover:not(:disabled) { color: #fff; filter: brightness(1.08); }
button:focus-visible, input:focus-visible, .lineage-node:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
input { font: inherit; font-size: 13px; padding: 4px 7px; border: 1px solid #cbd5e1; border-radius: 6px; width: 9em; }
label.field { display: inline-flex; flex-direction: column; font-size: 11px; color: var(--muted); gap: 2px; }
#wb-banner { margin: 12px 28px 0; padding: 8px 12px; border-radius: 6px; background: #fef3c7; color: #92400e; }
#wb-toast { position: fixed; right: 20px; bottom: 20px; max-width: 520px; z-index: 10; padding: 10px 14px; border-radius: 8px; background: #111827; color: #fff;
  box-shadow: 0 6px 24px rgba(0, 0, 0, 0.25); font-size: 13px; }
#wb-toast.error { background: #991b1b; }
#wb-toast:empty { display: none; }
.detail-row { grid-template-columns: minmax(320px, 1fr) minmax(420px, 1.3fr); }
#candidate { position: sticky; top: 96px; max-height: calc(100vh - 110px); overflow: auto; }
#candidate h4 { margin: 14px 0 6px; font-size: 14px; }
#candidate pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #f8fafc; border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px; max-height: 340px; overflow: auto; }
#candidate .two-col { grid-template-columns: 1fr; }
details.reflection summary { cursor: pointer; color: var(--accent); margin: 4px 0; }
.score-strip { display: flex; flex-wrap: wrap; gap: 1px; margin: 8px 0 2px; }
.score-strip .cell { width: 12px; height: 12px; border-radius: 2px; }
.branch-form { display: flex; flex-wrap: wrap; gap: 8px; align-items: flex-end; margin-top: 14px; padding-top: 12px; border-top: 1px solid var(--line); }
.resume-form { display: inline-flex; gap: 6px; align-items: flex-end; }
table.in-flight { border-collapse: collapse; width: 100%; }
table.in-flight td, table.in-flight th { padding: 3px 8px; border-bottom: 1px solid var(--line); text-align: left; }
table.in-flight .num { text-align: right; font-variant-numeric: tabular-nums; }
.stage-reflection { color: #7c3aed; } .stage-valset { color: #2563eb; } .stage-child-minibatch { color: #b45309; }
ul.notices { list-style: none; padding: 0; margin: 0; max-height: 360px; overflow: auto; }
.notice { display: flex; flex-wrap: wrap; gap: 6px; padding: 6px 0; border-bottom: 1px solid var(--line); font-size: 13px; }
.notice .level { font-weight: 600; text-transform: uppercase; font-size: 11px; padding: 1px 6px; border-radius: 4px; background: #f3f4f6; }
.notice.error .level { background: #fee2e2; color: #991b1b; }
.notice.warning .level { background: #fef3c7; color: #92400e; }
.notice .kind { font-family: ui-monospace, monospace; font-size: 12px; color: #374151; }
.notice .when { color: var(--muted); font-variant-numeric: tabular-nums; }
.notice .systemic { color: #991b1b; }
.notice .message { flex: 1 1 100%; overflow-wrap: anywhere; }
.grid-row { cursor: pointer; }
.grid-row.selected .row-label { fill: var(--accent); font-weight: 700; }
.report-link { margin-left: 6px; }
`;

// Kept small and dependency-free: the page must work offline, from this server only.
const CLIENT_SCRIPT = `
(() => {
  const params = new URLSearchParams(location.search);
  const token = params.get('token') || '';
  const run = params.get('run') || '';
  const query = (extra) => new URLSearchParams(Object.assign({ run, token }, extra || {})).toString();
  const byId = (id) => document.getElementById(id);
  let selected = null;
  let lastStatus = null;

  const toast = (text, error) => {
    const el = byId('wb-toast');
    el.textContent = text;
    el.className = error ? 'error' : '';
    clearTimeout(toast.timer);
    toast.timer = setTimeout(() => { el.textContent = ''; }, error ? 12000 : 6000);
  };
  const banner = (text) => { const el = byId('wb-banner'); el.textContent = text; el.hidden = !text; };

  const fixLinks = (root) => {
    for (const a of root.querySelectorAll('a[data-href]')) a.href = a.dataset.href + '?' + query();
    for (const a of root.querySelectorAll('a[data-run]')) a.href = '?' + new URLSearchParams({ run: a.dataset.run, token }).toString();
  };
  const markSelected = () => {
    for (const n of document.querySelectorAll('.lineage-node')) n.classList.toggle('selected', Number(n.dataset.index) === selected);
    for (const n of document.querySelectorAll('.grid-row')) n.classList.toggle('selected', Number(n.dataset.index) === selected);
  };
  const setPanel = (id, html) => {
    for (const el of document.querySelectorAll('[data-panel="' + id + '"]')) {
      const inner = el.querySelector('.scroll');
      const keep = inner ? [inner.scrollTop, inner.scrollLeft] : null;
      el.innerHTML = html;
      const again = el.querySelector('.scroll');
      if (keep && again) { again.scrollTop = keep[0]; again.scrollLeft = keep[1]; }
      fixLinks(el);
    }
    markSelected();
  };

  const fmt = (x) => (typeof x === 'number' ? x.toFixed(3) : '–');
  const setStatus = (s) => {
    lastStatus = s;
    const pill = byId('wb-pill');
    pill.textContent = s.status;
    pill.className = 'pill ' + s.status;
    pill.title = s.stopText || '';
    byId('wb-best').textContent = fmt(s.bestScore);
    byId('wb-best-sub').textContent = s.bestScore === undefined ? 'waiting for the seed' : 'candidate #' + s.bestIndex + ' of ' + s.candidates;
    byId('wb-calls').textContent = s.metricCalls + (s.budget ? ' / ' + s.budget : '');
    byId('wb-bar').style.width = s.budget ? Math.min(100, (100 * s.metricCalls) / s.budget) + '%' : '0';
    byId('wb-cost').textContent = s.costText;
    byId('wb-elapsed').textContent = s.elapsed;
    byId('wb-inflight').textContent = String(s.inFlight);
    byId('wb-inflight-sub').textContent = (s.schedule || '') + (s.workers ? ', ' + s.workers + ' slots' : '');
    byId('wb-subtitle').textContent = s.subtitle || '';
    document.title = (s.status === 'running' ? '● ' : '') + fmt(s.bestScore) + ' · ' + s.title;
  };
  const setControls = (c) => {
    for (const button of document.querySelectorAll('button[data-action]')) {
      const why = c[button.dataset.action];
      button.disabled = why !== null && why !== undefined;
      button.title = why || '';
    }
  };

  const connect = () => {
    const source = new EventSource('events?' + query());
    source.addEventListener('panels', (e) => { const panels = JSON.parse(e.data); for (const id of Object.keys(panels)) setPanel(id, panels[id]); });
    source.addEventListener('status', (e) => setStatus(JSON.parse(e.data)));
    source.addEventListener('controls', (e) => setControls(JSON.parse(e.data)));
    source.onopen = () => banner('');
    source.onerror = () => banner(lastStatus && lastStatus.status !== 'running' ? 'The workbench server is not answering (the process that served it may have ended); retrying…' : 'Connection to the workbench lost; retrying…');
  };

  const select = async (i) => {
    if (!Number.isInteger(i)) return;
    selected = i;
    markSelected();
    byId('wb-branch-candidate').value = String(i);
    const res = await fetch('api/candidate?' + query({ i: String(i) }));
    byId('wb-detail').innerHTML = res.ok ? await res.text() : '<p class="muted">' + (await res.text()) + '</p>';
  };
  document.addEventListener('click', (e) => {
    const node = e.target.closest('.lineage-node, .grid-row');
    if (node) select(Number(node.dataset.index));
  });
  document.addEventListener('keydown', (e) => {
    const node = e.target.closest && e.target.closest('.lineage-node');
    if (node && (e.key === 'Enter' || e.key === ' ')) { e.preventDefault(); select(Number(node.dataset.index)); }
  });

  const control = async (body, button) => {
    if (button) button.disabled = true;
    try {
      const res = await fetch('api/control?' + new URLSearchParams({ run }).toString(), {
        method: 'POST', headers: { 'content-type': 'application/json', 'x-workbench-token': token }, body: JSON.stringify(body),
      });
      const out = await res.json().catch(() => ({ error: res.status + ' ' + res.statusText }));
      toast(out.message || out.error, !res.ok);
      if (res.ok && out.branch) {
        const link = '?' + new URLSearchParams({ run: (run ? run + '/' : '') + out.branch, token }).toString();
        byId('wb-branch-link').innerHTML = '<a href="' + link + '">Open branch ' + out.branch.split('/').pop() + '</a>';
      }
    } catch (error) {
      toast(String(error), true);
    } finally {
      if (button) button.disabled = false;
    }
  };
  const num = (id) => { const v = byId(id).value.trim(); return v === '' ? undefined : Number(v); };
  const text = (id) => { const v = byId(id).value.trim(); return v === '' ? undefined : v; };
  byId('wb-drain').addEventListener('click', (e) => control({ action: 'drain' }, e.currentTarget));
  byId('wb-stop').addEventListener('click', (e) => control({ action: 'stop' }, e.currentTarget));
  byId('wb-resume').addEventListener('click', (e) => control(JSON.parse(JSON.stringify({ action: 'resume', budget: num('wb-resume-budget') })), e.currentTarget));
  byId('wb-branch').addEventListener('click', (e) => control(JSON.parse(JSON.stringify({
    action: 'branch', candidate: num('wb-branch-candidate'), budget: num('wb-branch-budget'), schedule: text('wb-branch-schedule'), reflectionModel: text('wb-branch-model'),
  })), e.currentTarget));

  fixLinks(document);
  connect();
})();
`;

/** What the page's shell is given: the panels' first drawing, the status line, the controls. */
export interface PageInput {
  title: string;
  runId: string;
  dir?: string;
  panels: Partial<Record<WorkbenchPanel, string>>;
  /** A nonce for the Content-Security-Policy that lets the inline script run (and nothing else). */
  nonce: string;
  hasReport: boolean;
  /** The status line as it stands: the header is drawn with it, so it reads right before the event stream connects. */
  status?: WorkbenchStatus;
}

export function renderWorkbenchPage(input: PageInput): string {
  const p = (id: WorkbenchPanel) => input.panels[id] ?? '';
  const s = input.status;
  const best = s?.bestScore !== undefined ? s.bestScore.toFixed(3) : '–';
  const bestSub = s === undefined ? '' : s.bestScore === undefined ? 'waiting for the seed' : `candidate #${s.bestIndex} of ${s.candidates}`;
  const calls = s === undefined ? '0' : `${s.metricCalls}${s.budget ? ` / ${s.budget}` : ''}`;
  const report = input.hasReport ? '<a class="report-link" data-href="report.html" target="_blank" rel="noopener">report.html</a>' : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(input.title)}</title><style>${REPORT_CSS}${WORKBENCH_CSS}</style></head>
<body>
<header class="wb-head">
  <div class="wb-title"><h1>${escapeHtml(input.title)} <span class="pill${s ? ` ${escapeHtml(s.status)}` : ''}" id="wb-pill">${s ? escapeHtml(s.status) : '…'}</span></h1>
    <div class="muted"><span id="wb-subtitle"></span>${input.dir ? ` · <span class="run-dir">${escapeHtml(input.dir)}</span>` : ''} ${report}</div></div>
  <div class="wb-figures">
    <div class="fig best"><span class="label">best valset score</span><span class="value" id="wb-best">${best}</span><span class="sub" id="wb-best-sub">${escapeHtml(bestSub)}</span></div>
    <div class="fig"><span class="label">metric calls</span><span class="value" id="wb-calls">${calls}</span><div class="bar"><div id="wb-bar"></div></div></div>
    <div class="fig"><span class="label">cost</span><span class="value" id="wb-cost">${s ? escapeHtml(s.costText) : '–'}</span></div>
    <div class="fig"><span class="label">elapsed</span><span class="value" id="wb-elapsed">${s ? escapeHtml(s.elapsed) : '–'}</span></div>
    <div class="fig"><span class="label">in flight</span><span class="value" id="wb-inflight">${s ? s.inFlight : 0}</span><span class="sub" id="wb-inflight-sub"></span></div>
  </div>
  <div class="wb-controls">
    <button id="wb-drain" data-action="drain" title="">Drain</button>
    <button id="wb-stop" data-action="stop">Stop</button>
    <span class="resume-form"><label class="field">budget<input id="wb-resume-budget" type="number" min="1" step="1" inputmode="numeric" placeholder="metric calls"></label><button id="wb-resume" data-action="resume">Resume</button></span>
  </div>
</header>
<div id="wb-banner" role="alert" hidden></div>
<main>
<div class="cards" data-panel="cards">${p('cards')}</div>
<div class="row">
<section id="over-time"><h2>Best valset score over wall-clock</h2><div data-panel="overTime">${p('overTime')}</div></section>
<section id="over-calls"><h2>Best valset score over metric calls</h2><div data-panel="overCalls">${p('overCalls')}</div></section>
</div>
<div class="row detail-row">
<section id="lineage"><h2>Candidate lineage</h2><p class="muted">${LINEAGE_CAPTION} Click a node (or focus it and press Enter) to open it.</p><div class="scroll" data-panel="lineage">${p('lineage')}</div></section>
<section id="candidate" aria-live="polite"><h2>Candidate</h2><div id="wb-detail"><p class="muted">Choose a candidate in the lineage or the Pareto grid: its text, its diff from its parent, the reflection that wrote it, its scores and what it cost.</p></div>
<div class="branch-form">
  <label class="field">candidate<input id="wb-branch-candidate" type="number" min="0" step="1" inputmode="numeric"></label>
  <label class="field">budget<input id="wb-branch-budget" type="number" min="1" step="1" inputmode="numeric" placeholder="as the run"></label>
  <label class="field">schedule<input id="wb-branch-schedule" placeholder="e.g. async:8"></label>
  <label class="field">reflection model<input id="wb-branch-model" placeholder="as the run"></label>
  <button id="wb-branch" data-action="branch" class="primary">Branch from here</button><span id="wb-branch-link"></span>
</div></section>
</div>
<section id="pareto"><h2>Per-example Pareto front</h2><p class="muted">Rows: candidates; columns: valset examples. Click a row to open its candidate.</p><div data-panel="pareto">${p('pareto')}</div></section>
<section id="timeline"><h2>Worker slots</h2><div data-panel="timeline">${p('timeline')}</div></section>
<div class="row">
<section id="in-flight"><h2>Proposals in flight</h2><div data-panel="inFlight">${p('inFlight')}</div></section>
<section id="notices"><h2>Failures and warnings</h2><div data-panel="notices">${p('notices')}</div></section>
</div>
<section id="actors"><h2>Actor system</h2><div data-panel="actors">${p('actors')}</div></section>
<section id="proposals"><h2>Proposals</h2><div class="scroll" data-panel="proposals">${p('proposals')}</div></section>
<section id="best-candidate"><h2>Best candidate</h2><div data-panel="bestCandidate">${p('bestCandidate')}</div></section>
<div class="row">
<section id="model-usage"><h2>Tokens and cost per model</h2><div data-panel="modelUsage">${p('modelUsage')}</div></section>
<section id="runtime-model"><h2>Runtime model: predicted vs measured</h2><div data-panel="runtimeModel">${p('runtimeModel')}</div></section>
</div>
<section id="valset-answers"><h2>The best candidate on the valset</h2><div data-panel="valsetAnswers">${p('valsetAnswers')}</div></section>
<section id="links"><h2>Branches</h2><div data-panel="links">${p('links')}</div></section>
</main>
<div id="wb-toast" role="status" aria-live="polite"></div>
<script nonce="${escapeHtml(input.nonce)}">${CLIENT_SCRIPT}</script>
</body></html>
`;
}
