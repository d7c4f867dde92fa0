// `npm run bench -- [name…] [--protocol NAME|mixed] [--seconds N]`: runs the named benchmarks (all
// when none is named). Each prints its figures and its ratios against a peer measured in the same
// run; options are read by the benchmarks that take them (ingest: --protocol, stream: --seconds).
const ALL = ['gateway', 'history', 'ingest', 'events', 'reports', 'stream'];

const args = process.argv.slice(2);
// Options take a value (`--protocol mixed` or `--protocol=mixed`); the benchmarks read their own.
const names = args.filter((a, i) => !a.startsWith('-') && !(args[i - 1]?.startsWith('--') && !args[i - 1]!.includes('=')));
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
