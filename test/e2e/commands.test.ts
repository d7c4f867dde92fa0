// Commands beyond locate end to end: real tracker and gateway processes, real TCP to simulated
// GT06, Teltonika, H02 and JT/T 808 units that answer; engine stop's speed limit and short life; the
// unit's command log with the token id that sent each command.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { jt808 } from '../../tracker/protocols/jt808/index.js';
import { readHeader } from '../../tracker/protocols/jt808/message.js';
import { gt06CommandReply, gt06Login } from '../../tracker/simulator/frames/gt06.js';
import { jt808CommandAnswer, jt808Heartbeat } from '../../tracker/simulator/frames/jt808.js';
import { SimulatedDevice } from '../../tracker/simulator/device.js';
import type { SimProtocol } from '../../tracker/simulator/protocols.js';
import { DeviceClient, eventually } from '../helpers/device-client.js';
import { freePort } from '../helpers/ports.js';
import { startService, stopAllServices } from '../helpers/processes.js';
import { createStack, type Stack } from '../helpers/stack.js';

let stack: Stack;
let base: string;
let devicePort: number;
let token: string;
let readToken: string;
let account: string;
const devices: SimulatedDevice[] = [];

/** The token's id, as the gateway states it to the tracker (the JWT's jti). */
const tokenIdOf = (jwt: string) => (JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString()) as { jti: string }).jti;

async function call(method: string, path: string, body?: unknown, as = token) {
  const res = await fetch(`${base}/api/public/v1${path}`, {
    method,
    headers: { Authorization: `Bearer ${as}`, ...(body !== undefined && { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

const send = (id: string, body: unknown, as = token) => call('POST', `/devices/${id}/commands`, body, as);
const command = async (id: string, commandId: string) => (await call('GET', `/devices/${id}/commands/${commandId}`)).body;
const settled = (id: string, commandId: string, ms = 5000) => eventually(() => command(id, commandId), (c) => c.status !== 'queued' && c.status !== 'sent', ms);

/** A simulated unit, connected and reported once while standing (speed 0 at the start). */
async function unit(protocol: SimProtocol, imei: string): Promise<{ id: string; sim: SimulatedDevice }> {
  const id = await stack.device(account, imei);
  const sim = new SimulatedDevice(protocol, imei, { lat: 52.52, lng: 13.405, heading: 0, speed: 0 }, { host: '127.0.0.1', devicePort, osmandPort: 0 });
  devices.push(sim);
  await sim.connect();
  await sim.tick(0);
  await eventually(async () => (await call('GET', `/devices/${id}`)).body.status, (s) => s === 'online');
  return { id, sim };
}

beforeAll(async () => {
  stack = await createStack();
  // Engine stop: a short life for the test, and a limit above the simulator's creep at a standstill (under 6 km/h).
  const tracker = await stack.startTracker({ ENGINE_STOP_TTL_SECONDS: '2', ENGINE_STOP_MAX_SPEED_KMH: '10' });
  devicePort = tracker.devicePorts.device!;
  const gatewayPort = await freePort();
  base = `http://127.0.0.1:${gatewayPort}`;
  await startService('gateway/main.ts', { ...stack.gatewayEnv(tracker.port), GATEWAY_PORT: String(gatewayPort), RATE_LIMIT_COMMANDS_PER_MINUTE: '1000', RATE_LIMIT_READ_PER_MINUTE: '100000' }, { timeoutMs: 60_000 });
  account = await stack.account('Haulage');
  token = await stack.token(account, 'read,commands');
  readToken = await stack.token(account, 'read');
}, 120_000);

afterAll(async () => {
  for (const d of devices) d.close();
  await stopAllServices();
  await stack?.close();
});

describe('round trips through simulated units that answer', () => {
  test('GT06: every type is sent as the Concox text and delivered with its own reply', async () => {
    const { id, sim } = await unit('gt06', '359633100007001');
    expect((await call('GET', `/devices/${id}/commands/types`)).body).toEqual({ protocol: 'gt06', types: ['locate', 'engineStop', 'engineResume', 'reboot', 'setInterval', 'custom'] });
    const cases: [unknown, string, string][] = [
      [{ type: 'engineStop' }, 'Relay,1#', 'Relay,1: Success!'],
      [{ type: 'engineResume' }, 'Relay,0#', 'Relay,0: Success!'],
      [{ type: 'reboot' }, 'RESET#', 'RESET: Success!'],
      [{ type: 'setInterval', attributes: { seconds: 30 } }, 'TIMER,30,30#', 'TIMER,30,30: Success!'],
      [{ type: 'custom', attributes: { text: 'DYD,123456#' } }, 'DYD,123456#', 'DYD,123456: Success!'],
    ];
    for (const [body, sent, reply] of cases) {
      const queued = await send(id, body);
      expect(queued).toEqual({ status: 200, body: { ok: true, queued: true, commandId: expect.any(String) } });
      expect(await settled(id, queued.body.commandId)).toMatchObject({ status: 'delivered', reply });
      expect(sim.commands.at(-1)).toBe(sent);
    }
  });

  test('Teltonika: Codec 12 texts, each answered', async () => {
    const { id, sim } = await unit('teltonika', '359633100007002');
    for (const [body, sent] of [
      [{ type: 'engineStop' }, 'setdigout 1'],
      [{ type: 'engineResume' }, 'setdigout 0'],
      [{ type: 'reboot' }, 'cpureset'],
      [{ type: 'custom', attributes: { text: 'getinfo' } }, 'getinfo'],
    ] as const) {
      const { commandId } = (await send(id, body)).body;
      expect(await settled(id, commandId)).toMatchObject({ status: 'delivered', reply: `${sent} OK` });
      expect(sim.commands.at(-1)).toBe(sent);
    }
    expect((await send(id, { type: 'setInterval', attributes: { seconds: 60 } })).status).toBe(409);
  });

  test('H02: S20 and S71, confirmed by V4', async () => {
    const { id, sim } = await unit('h02', '4210057001');
    const stop = (await send(id, { type: 'engineStop' })).body.commandId;
    expect(await settled(id, stop)).toMatchObject({ status: 'delivered', reply: 'S20,1,1' });
    const interval = (await send(id, { type: 'setInterval', attributes: { seconds: 15 } })).body.commandId;
    expect(await settled(id, interval)).toMatchObject({ status: 'delivered', reply: 'S71,22,15', attributes: { seconds: 15 } });
    expect(sim.commands).toEqual(['S20,1,1', 'S71,22,15']);
  });

  test('JT/T 808: 0x8201, 0x8105, 0x8103 and 0x8300 go out with the command number as serial; 0x0001 and 0x0201 answer them', async () => {
    const { id, sim } = await unit('jt808', '359633100007021');
    expect((await call('GET', `/devices/${id}/commands/types`)).body).toEqual({ protocol: 'jt808', types: ['locate', 'engineStop', 'engineResume', 'reboot', 'setInterval', 'custom'] });
    const cases: [unknown, string, RegExp][] = [
      [{ type: 'locate' }, '0x8201', /^0x8201 #\d+: position$/],
      [{ type: 'engineStop' }, '0x8105 f0', /^0x8105 #\d+: success$/],
      [{ type: 'engineResume' }, '0x8105 f1', /^0x8105 #\d+: success$/],
      [{ type: 'reboot' }, '0x8105 04', /^0x8105 #\d+: success$/],
      [{ type: 'setInterval', attributes: { seconds: 30 } }, '0x8103 0100000029040000001e', /^0x8103 #\d+: success$/],
      // custom text: a 0x8300 text message, flag 01 (urgent), then the text
      [{ type: 'custom', attributes: { text: 'RELAY,1#' } }, `0x8300 01${Buffer.from('RELAY,1#').toString('hex')}`, /^0x8300 #\d+: success$/],
    ];
    for (const [body, sent, reply] of cases) {
      const { commandId } = (await send(id, body)).body;
      const done = await settled(id, commandId);
      expect(done).toMatchObject({ status: 'delivered', reply: expect.stringMatching(reply) });
      expect(sim.commands.at(-1)).toBe(sent);
    }
    // locate answers with the unit's fix
    const located = (await call('GET', `/devices/${id}/commands?limit=${cases.length}`)).body.data.at(-1);
    expect(located).toMatchObject({ type: 'locate', position: { lat: expect.closeTo(52.52, 2), lng: expect.closeTo(13.405, 2) } });
  });

  test('JT/T 808: a unit answering failure or "not supported" fails the command, with its answer', async () => {
    const { id, sim } = await unit('jt808', '359633100007022');
    sim.jt808Result = 3;
    const { commandId } = (await send(id, { type: 'reboot' })).body;
    expect(await settled(id, commandId)).toMatchObject({ status: 'failed', reply: expect.stringMatching(/^0x8105 #\d+: not supported$/), error: expect.stringContaining('not supported'), deliveredAt: null, endedAt: expect.any(String) });
  });

  test('a JT/T 808 answer finds its command by serial, whatever the order of the answers', async () => {
    const imei = '359633100007023';
    const id = await stack.device(account, imei);
    const d = await DeviceClient.open(devicePort);
    d.send(jt808Heartbeat(imei, 1));
    await eventually(async () => (await call('GET', `/devices/${id}`)).body.status, (s) => s === 'online');
    /** The commands received so far (the platform's 0x8001 answers left out). */
    const downlinks = () => jt808.createFramer(4096).push(d.pending()).map((f) => readHeader(f)!).filter((h) => h.type !== 0x8001);
    const first = (await send(id, { type: 'reboot' })).body.commandId;
    const second = (await send(id, { type: 'engineResume' })).body.commandId;
    const [a, b] = await eventually(async () => downlinks(), (list) => list.length === 2);
    expect([a!.type, b!.type]).toEqual([0x8105, 0x8105]);
    d.send(jt808CommandAnswer(imei, b!.serial, 0x8105, 2, 1));
    d.send(jt808CommandAnswer(imei, a!.serial, 0x8105, 3, 0));
    expect(await settled(id, second)).toMatchObject({ status: 'failed', reply: `0x8105 #${b!.serial}: failure` });
    expect(await settled(id, first)).toMatchObject({ status: 'delivered', reply: `0x8105 #${a!.serial}: success` });
    d.close();
  });

  test('a GT06 reply finds its command by the echoed flag, whatever the order of the answers', async () => {
    const id = await stack.device(account, '359633100007004');
    const d = await DeviceClient.open(devicePort);
    d.send(gt06Login('359633100007004', 1));
    await d.read(10);
    const first = (await send(id, { type: 'reboot' })).body.commandId;
    const firstFrame = await d.read(5 + 4 + 6 + 6);
    const second = (await send(id, { type: 'engineResume' })).body.commandId;
    const secondFrame = await d.read(5 + 4 + 8 + 6);
    d.send(gt06CommandReply('Restore fuel supply: Success!', secondFrame.readUInt32BE(5), 2));
    d.send(gt06CommandReply('Reset OK', firstFrame.readUInt32BE(5), 3));
    expect(await settled(id, second)).toMatchObject({ reply: 'Restore fuel supply: Success!' });
    expect(await settled(id, first)).toMatchObject({ reply: 'Reset OK' });
    // A flag that names no command (units answering with ones or zeros) still delivers the oldest sent.
    const third = (await send(id, { type: 'reboot' })).body.commandId;
    await d.read(5 + 4 + 6 + 6);
    d.send(gt06CommandReply('Reset OK', 0xffffffff, 4));
    expect(await settled(id, third)).toMatchObject({ status: 'delivered', reply: 'Reset OK' });
    d.close();
  });
});

describe('engine stop safety', () => {
  test('refused with 409 while the last reported speed is above the limit', async () => {
    const { id, sim } = await unit('gt06', '359633100007005');
    sim.play('speeding');
    await new Promise((r) => setTimeout(r, 1100)); // a fix of its own second, not a repeat of the first
    await sim.tick(1);
    await eventually(async () => (await call('GET', `/devices/${id}`)).body.speed, (s) => s > 100);
    const refused = await send(id, { type: 'engineStop' });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatch(/130 km\/h.*refused above 10 km\/h/);
    expect(sim.commands).toEqual([]);
    expect((await call('GET', `/devices/${id}/commands`)).body.data).toEqual([]);
    // Resuming is never dangerous.
    expect((await send(id, { type: 'engineResume' })).status).toBe(200);
  });

  test('expires after ENGINE_STOP_TTL_SECONDS and is never sent; the log keeps it with the token id', async () => {
    const id = await stack.device(account, '359633100007006'); // never connects
    const { commandId } = (await send(id, { type: 'engineStop' })).body;
    const other = (await send(id, { type: 'reboot' })).body.commandId;
    const expired = await settled(id, commandId, 6000);
    expect(expired).toMatchObject({ status: 'expired', sentAt: null, type: 'engineStop', tokenId: tokenIdOf(token) });
    expect(new Date(expired.expiresAt).getTime() - new Date(expired.createdAt).getTime()).toBe(2000);
    // Other commands keep the general time to live.
    expect((await command(id, other)).status).toBe('queued');
    const log = await call('GET', `/devices/${id}/commands`);
    expect(log.body.data.map((c: { id: string }) => c.id)).toEqual([other, commandId]);
    expect(JSON.stringify(log.body)).not.toContain(token);
  });
});

describe('the command log and its refusals', () => {
  test('newest first, paged, with type, attributes, status, reply, times and the token id', async () => {
    const id = await stack.device(account, '359633100007007');
    const ids: string[] = [];
    for (const seconds of [10, 20, 30]) ids.push((await send(id, { type: 'setInterval', attributes: { seconds } })).body.commandId);
    const page1 = await call('GET', `/devices/${id}/commands?limit=2`);
    expect(page1.body.data.map((c: { id: string }) => c.id)).toEqual([ids[2], ids[1]]);
    expect(page1.body.data[0]).toMatchObject({ type: 'setInterval', attributes: { seconds: 30 }, status: 'queued', reply: null, tokenId: tokenIdOf(token), sentAt: null });
    const page2 = await call('GET', `/devices/${id}/commands?limit=2&cursor=${page1.body.nextCursor}`);
    expect(page2.body).toEqual({ data: [expect.objectContaining({ id: ids[0] })], nextCursor: null });
  });

  test('a unit that never connected: no known protocol, no types', async () => {
    const id = await stack.device(account, '359633100007008');
    expect((await call('GET', `/devices/${id}/commands/types`)).body).toEqual({ protocol: null, types: [] });
  });

  test("409 naming the protocol for a type it lacks", async () => {
    const { id } = await unit('h02', '4210057009');
    expect(await send(id, { type: 'reboot' })).toEqual({ status: 409, body: { code: 'conflict', error: expect.stringContaining('H02, which has no reboot command') } });
    expect((await call('GET', `/devices/${id}/commands/types`)).body).toEqual({ protocol: 'h02', types: ['engineStop', 'engineResume', 'setInterval', 'custom'] });
  });

  test('400 naming the field for bad attributes', async () => {
    const { id } = await unit('gt06', '359633100007010');
    const cases: [unknown, string][] = [
      [{ type: 'selfDestruct' }, '"type"'],
      [{ type: 'setInterval' }, '"attributes.seconds"'],
      [{ type: 'setInterval', attributes: { seconds: 5 } }, '"attributes.seconds"'],
      [{ type: 'setInterval', attributes: { seconds: 90_000 } }, '"attributes.seconds"'],
      [{ type: 'reboot', attributes: { seconds: 30 } }, '"attributes.seconds"'],
      [{ type: 'custom', attributes: { text: 'x'.repeat(201) } }, '"attributes.text"'],
      [{ type: 'custom', attributes: { text: 'Relé#' } }, '"attributes.text"'],
      [{ type: 'custom', attributes: { hex: 'abc' } }, '"attributes.hex"'],
      [{ type: 'custom', attributes: { text: 'A#', hex: '00' } }, '"attributes.text"'],
      [{ type: 'custom', attributes: { colour: 'red' } }, '"attributes"'],
      [{ type: 'custom', attributes: { hex: '0102' } }, 'text'], // GT06 takes custom commands as text
    ];
    for (const [body, field] of cases) {
      const res = await send(id, body);
      expect([JSON.stringify(body), res.status, res.body.code]).toEqual([JSON.stringify(body), 400, 'bad_request']);
      expect(res.body.error).toContain(field);
    }
  });

  test('a read-only token can list but not send', async () => {
    const id = await stack.device(account, '359633100007011');
    expect((await send(id, { type: 'reboot' }, readToken)).status).toBe(403);
    expect((await call('GET', `/devices/${id}/commands`, undefined, readToken)).status).toBe(200);
  });
});
