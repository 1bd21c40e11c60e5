/**
 * `gepa-actors/report`: what a run looked like: report.html, the observation of a run it is drawn
 * from, the inspection log (XState inspection records) and the staleness summary. docs/observability.md.
 *
 * @module gepa-actors/report
 */
export { renderReport, writeReport, type ReportInput, type StringArtifactResult } from '../report/renderReport.js';
export { observeRun, type ModelNames, type ObservationSource, type RunObservation, type ValsetAnswer } from '../report/runObserver.js';
export type { ModelRole, ModelUsage } from '../report/modelUsage.js';
export { createInspectionLog, parseInspectionLog, type InspectionLog, type InspectionRecord, type StateValue } from '../report/inspectionLog.js';
export { summarizeStaleness, formatStaleness, type StalenessSummary } from '../report/stalenessSummary.js';
