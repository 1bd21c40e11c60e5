/**
 * `gepa-actors/settings`: the type of each enumerated setting of optimize() (docs/options.md), for
 * a caller who names them apart from OptimizeConfig. Schedule and StepMinibatches are at the root.
 *
 * @module gepa-actors/settings
 */
export type {
  AcceptanceRule,
  ComponentSelectionStrategy,
  FrontType,
  HeldSlot,
  ParentSelectionStrategy,
  ParentWeighting,
  ProposalSelection,
  RebaseGate,
  RebasePolicy,
  RebaseWait,
  SearchMode,
  SlotPolicy,
  Speculation,
  TieOrder,
  ValsetPolicy,
} from '../settingValues.js';
export type { SlotInterval } from '../evaluation/workerSlots.js';
