// Which components a proposal rewrites: round-robin per candidate (each candidate keeps a
// pointer that advances with every proposal made from it; a child starts at the max pointer of
// its parents) or all components at once.
import type { ComponentSelectionStrategy } from '../../settingValues.js';

export interface ComponentChoice {
  components: string[];
  /** The parent's pointer after this choice. */
  nextPointer: number;
}

export function selectComponents(
  strategy: ComponentSelectionStrategy,
  componentNames: readonly string[],
  pointer: number,
): ComponentChoice {
  if (strategy === 'all') return { components: [...componentNames], nextPointer: pointer };
  const at = pointer % componentNames.length;
  return { components: [componentNames[at] as string], nextPointer: (at + 1) % componentNames.length };
}
