// How wide a schedule searches, counted in batched widths: the rule that turns a number of
// proposals into generations (proposals / width), shared by recommendSchedule (which schedules
// leave enough generations) and the async 'free-early' held-slot rule (how long freed places may
// widen the search).

/**
 * The batched width async K counts as. Without rebasing a proposal is blind to the K - 1 others
 * for its whole life, and to the ones that start while it runs: async K ended between batched
 * widths K and 2K in quality. Async rebases a stale child onto the newer best and judges it where
 * its edit helped, and since issue 33 decides children in launch order (`schedule.rebaseWait`),
 * so the work done in the meantime is built on rather than competed with. Measured against
 * single, 48 seeds a cell (bench/README.md, "A fourth round"): at 1,500 calls (61-91 proposals)
 * async 4, 8 and 16 end level with single or above on all three bench tasks; on the
 * fact-gathering task, whose search is still climbing when the budget ends, async 16 is level at
 * 750 calls (about 30 proposals, 144 seeds) and 0.07 below single at 500 (about 20), async 8
 * above single down to 500 and 0.04 below at 300 (about 12). The losses start near 16 proposals
 * per K / 8; with K / 8 the floor of 24 generations keeps a margin above that (async 16 needs 48
 * proposals, async 8 24). (It was K / 2, then K / 4 with the three-task figures before the
 * launch order: async 8 then ended at or above batched width 2 and async 16 like width 4.)
 */
export const ASYNC_WIDTH_FACTOR = 0.125;

/** The batched width async K counts as: K / 8, never narrower than one proposal at a time (async 2 to 8 leave no more generations than single). */
export function asyncSearchWidth(inFlight: number): number {
  return Math.max(1, ASYNC_WIDTH_FACTOR * inFlight);
}
