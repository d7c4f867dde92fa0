// Operator CLI: `npm run admin -- <group> <verb> [options] [--json]`.
// With PostgreSQL it opens the database itself. With the embedded database it goes through the
// running tracker's internal endpoint (PGlite belongs to one process), waits for a tracker that holds
// the data directory but does not answer yet, and opens the directory itself only when nobody holds it.
import { parseArgs } from 'node:util';
import { loadConfig, parseTrackerConfig, type TrackerConfig } from '../../shared/config.js';
import { ApiError } from '../../shared/errors.js';
import { INBOUND_ACTIONS } from '../../shared/inbound.js';
import { loadTrackerKeys, openStorage } from '../boot.js';
import { hasEmbeddedDatabase, pgliteDir, type DataDirLock } from '../storage/data-dir-lock.js';
import { formatResult } from './format.js';
import { callTrackerOrLock } from './remote.js';
import { isVerbName, runVerb, type VerbName } from './verbs.js';

const USAGE = `usage: admin <command> [options] [--json]
  accounts create --name NAME
  accounts list
  devices add --account ID --imei IMEI --name NAME [--plate PLATE]
  devices list --account ID
  devices update DEVICE_ID [--name NAME] [--plate PLATE] [--imei IMEI]   (a new IMEI closes the old one's connection)
  devices remove DEVICE_ID [--positions keep|remove]   (default keep: the history stays until the retention drops it)
  devices key DEVICE_ID --set [--key KEY] | --clear   (OsmAnd report key; a set key is printed once)
  tokens create --account ID --scopes read,write,commands [--name NAME]
  tokens list --account ID
  tokens revoke TOKEN_ID
  inbound add --account ID --action ACTION [--name NAME]   (actions: ${INBOUND_ACTIONS.join(', ')})
  inbound list --account ID
  inbound remove WEBHOOK_ID
  inbound calls WEBHOOK_ID [--limit N]
  webhooks add --account ID --url URL [--events all|e1,e2] [--format auto|standard|slack|discord|teams|googlechat]
  webhooks list --account ID
  webhooks remove|enable|test WEBHOOK_ID
  webhooks deliveries WEBHOOK_ID [--limit N]
  webhooks retry WEBHOOK_ID --since ISO_TIME   (failed deliveries of events since then are sent again)
  users create --account ID --email EMAIL      (prints a one-time link to set the password)
  users reset-password --email EMAIL           (a new link; the previous one stops working)
  users list --account ID
  users remove --email EMAIL                   (their sessions are signed out)`;

/** Commands that name their subject as a positional argument, and the argument's name. */
const POSITIONAL: Partial<Record<VerbName, string>> = {
  'devices key': 'device',
  'devices update': 'device',
  'devices remove': 'device',
  'tokens revoke': 'token',
  'inbound remove': 'webhook',
  'inbound calls': 'webhook',
  'webhooks remove': 'webhook',
  'webhooks enable': 'webhook',
  'webhooks test': 'webhook',
  'webhooks deliveries': 'webhook',
  'webhooks retry': 'webhook',
};

class UsageError extends Error {}

function parse(argv: string[]): { name: VerbName; args: Record<string, unknown>; json: boolean } {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        json: { type: 'boolean', default: false },
        name: { type: 'string' },
        account: { type: 'string' },
        imei: { type: 'string' },
        plate: { type: 'string' },
        scopes: { type: 'string' },
        url: { type: 'string' },
        events: { type: 'string' },
        format: { type: 'string' },
        action: { type: 'string' },
        limit: { type: 'string' },
        since: { type: 'string' },
        email: { type: 'string' },
        set: { type: 'boolean' },
        clear: { type: 'boolean' },
        key: { type: 'string' },
        positions: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) throw new UsageError('');
  const [group, verb, ...rest] = positionals;
  const name = `${group ?? ''} ${verb ?? ''}`;
  if (!isVerbName(name)) throw new UsageError(group ? `unknown command "${name.trim()}"` : '');
  const positional = POSITIONAL[name];
  if (rest.length > (positional ? 1 : 0)) throw new UsageError(`unexpected argument "${rest.at(-1)}"`);
  const { json, help: _help, ...args } = values;
  return { name, args: positional ? { ...args, [positional]: rest[0] } : args, json: json ?? false };
}

async function execute(config: TrackerConfig, name: VerbName, args: Record<string, unknown>): Promise<unknown> {
  let lock: DataDirLock | undefined;
  let created = false;
  if (!config.DATABASE_URL) {
    const remote = await callTrackerOrLock(config, name, args);
    if (remote.reached) return remote.result;
    lock = remote.lock;
    created = !hasEmbeddedDatabase(config.DATA_DIR);
  }
  const db = await openStorage(config, lock);
  // A mistyped DATA_DIR or another working directory would otherwise write to a database nobody reads.
  if (created) process.stderr.write(`created a new embedded database in ${pgliteDir(config.DATA_DIR)} (no tracker answered at ${config.TRACKER_URL})\n`);
  try {
    return await runVerb({ db, config, ...loadTrackerKeys(config) }, name, args);
  } finally {
    await db.close();
  }
}

async function main(): Promise<number> {
  let command;
  try {
    command = parse(process.argv.slice(2));
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`${err.message ? `error: ${err.message}\n` : ''}${USAGE}\n`);
    return 2;
  }
  const config = loadConfig(parseTrackerConfig);
  try {
    const result = await execute(config, command.name, command.args);
    process.stdout.write(command.json ? `${JSON.stringify(result)}\n` : formatResult(command.name, result));
    return 0;
  } catch (err) {
    if (err instanceof ApiError) {
      process.stderr.write(`error: ${err.message}\n`);
      return 1;
    }
    process.stderr.write(`error: ${(err as Error).message}\n`);
    return 1;
  }
}

process.exitCode = await main();
