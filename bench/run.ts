// `npm run bench -- [name…] [--seconds N]`: runs the named benchmarks (all when none is named). Each
// prints its figures and its ratios against a peer measured in the same run; options are read by the
// benchmarks that take them (stream: --seconds).
const ALL = ['gateway', 'history', 'ingest', 'events', 'stream'];

const args = process.argv.slice(2);
// An option's value follows it (`--seconds 60`): it is not a benchmark's name.
const names = args.filter((a, i) => !a.startsWith('-') && !(i > 0 && args[i - 1]!.startsWith('--') && !args[i - 1]!.includes('=')));
for (const name of names.length ? names : ALL) {
  if (!ALL.includes(name)) {
    process.stderr.write(`unknown benchmark "${name}"; known: ${ALL.join(', ')}\n`);
    process.exit(2);
  }
  let mod: { run: () => Promise<void> };
  try {
    mod = (await import(`./${name}.js`)) as { run: () => Promise<void> };
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_MODULE_NOT_FOUND') {
      process.stderr.write(`benchmark "${name}" is not written yet\n`);
      continue;
    }
    throw err;
  }
  process.stdout.write(`\n== ${name} ==\n`);
  await mod.run();
}
