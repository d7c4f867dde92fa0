// The repository layer against both engines: the machine's PostgreSQL and embedded PGlite.
import { describe, expect, test, beforeAll, afterAll } from '@jest/globals';
import { generateKeyPairSync } from 'node:crypto';
import { parseConfig } from '../../shared/config.js';
import { ApiError } from '../../shared/errors.js';
import { verifyToken } from '../../shared/tokens.js';
import type { AdminContext } from '../../tracker/admin/admin-context.js';
import { runVerb } from '../../tracker/admin/verbs.js';
import { findDevice } from '../../tracker/devices/repository.js';
import type { Queryable } from '../../tracker/storage/db.js';
import { findToken, listTokens } from '../../tracker/tokens/repository.js';
import { ENGINES, openTestDb } from '../helpers/databases.js';

const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });

const countDevices = async (db: Queryable, accountId: string) =>
  (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM devices WHERE account_id = $1', [accountId]))[0]!.n;

describe.each(ENGINES)('repositories on %s', (engine) => {
  let ctx: AdminContext;
  let close: () => Promise<void>;
  let accountId: string;

  beforeAll(async () => {
    const t = await openTestDb(engine);
    close = t.close;
    ctx = { db: t.db, privateKey, config: parseConfig({}) };
    accountId = ((await runVerb(ctx, 'accounts create', { name: 'Acme' })) as { id: string }).id;
  });
  afterAll(() => close());

  const rejects = async (p: Promise<unknown>, code: string, message: RegExp) => {
    const err = await p.then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe(code);
    expect((err as ApiError).message).toMatch(message);
  };

  test('adds a device and finds it only within its account', async () => {
    const d = (await runVerb(ctx, 'devices add', { account: accountId, imei: '359633100000123', name: 'Van', plate: 'AB-12' })) as { id: string };
    const found = await findDevice(ctx.db, accountId, d.id);
    expect(found).toMatchObject({ imei: '359633100000123', name: 'Van', plate: 'AB-12', status: 'offline', lastUpdate: null, lastSpeed: 0 });
    const other = ((await runVerb(ctx, 'accounts create', { name: 'Other' })) as { id: string }).id;
    expect(await findDevice(ctx.db, other, d.id)).toBeNull();
    expect(await countDevices(ctx.db, other)).toBe(0);
  });

  test('refuses bad device input and writes nothing', async () => {
    const before = await countDevices(ctx.db, accountId);
    await rejects(runVerb(ctx, 'devices add', { account: accountId, imei: '12ab5', name: 'X' }), 'bad_request', /5 to 20 digits/);
    await rejects(runVerb(ctx, 'devices add', { account: accountId, imei: '1234', name: 'X' }), 'bad_request', /5 to 20 digits/);
    await rejects(runVerb(ctx, 'devices add', { account: accountId, imei: '123456789012345678901', name: 'X' }), 'bad_request', /5 to 20 digits/);
    await rejects(runVerb(ctx, 'devices add', { account: accountId, imei: '359633100000123', name: 'Dup' }), 'conflict', /already exists/);
    await rejects(runVerb(ctx, 'devices add', { account: 'acc_nope', imei: '359633100000999', name: 'X' }), 'not_found', /no account acc_nope/);
    await rejects(runVerb(ctx, 'devices add', { account: accountId, imei: '359633100000998' }), 'bad_request', /device name/);
    expect(await countDevices(ctx.db, accountId)).toBe(before);
  });

  test('creates a token whose value verifies and is stored nowhere', async () => {
    const t = (await runVerb(ctx, 'tokens create', { account: accountId, scopes: 'read,commands', name: 'erp' })) as { id: string; token: string };
    expect(verifyToken(t.token, publicKey)).toEqual({ tokenId: t.id, accountId, scopes: ['read', 'commands'] });
    const stored = await ctx.db.query<Record<string, unknown>>('SELECT * FROM api_tokens WHERE id = $1', [t.id]);
    expect(JSON.stringify(stored)).not.toContain(t.token);
    expect(JSON.stringify(stored)).not.toContain(t.token.split('.')[2]);
  });

  test('refuses unknown scopes and unknown accounts for tokens', async () => {
    const before = (await listTokens(ctx.db, accountId)).length;
    await rejects(runVerb(ctx, 'tokens create', { account: accountId, scopes: 'read,admin' }), 'bad_request', /unknown scope "admin"/);
    await rejects(runVerb(ctx, 'tokens create', { account: accountId, scopes: '' }), 'bad_request', /unknown scope/);
    await rejects(runVerb(ctx, 'tokens create', { account: 'acc_missing', scopes: 'read' }), 'not_found', /no account/);
    expect((await listTokens(ctx.db, accountId)).length).toBe(before);
  });

  test('lists and revokes tokens', async () => {
    const t = (await runVerb(ctx, 'tokens create', { account: accountId, scopes: 'read' })) as { id: string };
    await runVerb(ctx, 'tokens revoke', { token: t.id });
    expect((await findToken(ctx.db, t.id))?.revokedAt).toBeInstanceOf(Date);
    const list = (await runVerb(ctx, 'tokens list', { account: accountId })) as { tokens: { id: string; status: string }[] };
    expect(list.tokens.find((x) => x.id === t.id)?.status).toBe('revoked');
    await rejects(runVerb(ctx, 'tokens revoke', { token: 'tok_unknown' }), 'not_found', /no token/);
  });

  test('streams a binary COPY as whole tuples, with quoted parameters, and recovers from a stream stopped early', async () => {
    const sql = "SELECT 'row ' || i || ' of ' || $1, i FROM generate_series(1, $2::int) AS i";
    const rows = async (params: string[], stopAfter = Infinity) => {
      const out: [string, number][] = [];
      let chunks = 0;
      for await (const tuples of ctx.db.copyBinary(sql, params)) {
        // Every buffer holds whole tuples: two fields, a text and an int4.
        for (let p = 0; p < tuples.length; ) {
          if (tuples.readInt16BE(p) !== 2) throw new Error(`a tuple of ${tuples.readInt16BE(p)} fields`);
          const length = tuples.readInt32BE(p + 2);
          const text = tuples.toString('utf8', p + 6, p + 6 + length);
          p += 6 + length;
          if (tuples.readInt32BE(p) !== 4) throw new Error('the int4 is not 4 bytes');
          out.push([text, tuples.readInt32BE(p + 4)]);
          p += 8;
        }
        if (++chunks >= stopAfter) break;
      }
      return out;
    };
    const all = await rows(["O'Brien \\ \"naïve\"", '50000']);
    expect(all).toHaveLength(50000);
    expect(all[0]).toEqual(['row 1 of O\'Brien \\ "naïve"', 1]);
    expect(all[49999]).toEqual(['row 50000 of O\'Brien \\ "naïve"', 50000]);
    expect(await rows(['none', '0'])).toEqual([]);
    await rows(['early', '200000'], 1);
    expect(await rows(['again', '2'])).toEqual([['row 1 of again', 1], ['row 2 of again', 2]]);
    expect(await countDevices(ctx.db, accountId)).toBeGreaterThan(0);
  });

  test('a COPY that fails in the database rejects, and the next query runs', async () => {
    const failing = async () => {
      for await (const _ of ctx.db.copyBinary('SELECT 1 / (i - 70000) FROM generate_series(1, 100000) AS i', [])) void _;
    };
    await expect(failing()).rejects.toThrow(/division by zero/);
    expect(await ctx.db.query('SELECT 2 AS two')).toEqual([{ two: 2 }]);
  });
});
