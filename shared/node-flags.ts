// The Node.js flags each service runs with, wherever it is started: the images' CMD (the image test
// holds the Dockerfiles to this), `npm start`, and the processes tests and benchmarks start. The
// tracker's young generation is four times Node's default: a batch's objects live across a few
// database round trips, and at 10,000 positions/s the smaller one spent about 6% more CPU per
// position collecting them (decisions, "Ingest: kept device states…").
export const NODE_FLAGS: Record<'tracker' | 'gateway', readonly string[]> = {
  tracker: ['--max-semi-space-size=64'],
  gateway: [],
};
