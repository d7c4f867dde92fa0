// The Node.js flags each service runs with, wherever it is started: the images' CMD (the image test
// holds the Dockerfiles to this), `npm start`, and the processes tests and benchmarks start. The
// tracker's young generation is four times Node's default: a batch's objects live across a few
// database round trips, and at 10,000 positions/s the smaller one spent about 6% more CPU per
// position collecting them (decisions, "Ingest: kept device states…"). Allocation-site pretenuring is
// off: V8 allocated per-report objects straight into the old generation from sites it had judged
// long-lived, where they died and filled it, so full collections came about twice as often under
// load (decisions, "Ingest: no pretenuring…").
export const NODE_FLAGS: Record<'tracker' | 'gateway', readonly string[]> = {
  tracker: ['--max-semi-space-size=64', '--no-allocation-site-pretenuring'],
  gateway: [],
};
