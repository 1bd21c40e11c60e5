/**
 * `gepa-actors/workbench`: watch and steer a run in the browser (docs/watching.md). `serveWorkbench`
 * serves a run directory (live while another process writes it) or an optimizer actor of this
 * process on loopback, and returns its URL (with an access token) and a close function.
 *
 * @module gepa-actors/workbench
 */
export { serveWorkbench, type ServeWorkbenchOptions, type Workbench, type WorkbenchActor, type ActorSubscription } from '../workbench/serveWorkbench.js';
export type { ControlRequest, ControlOutcome } from '../workbench/runControls.js';
