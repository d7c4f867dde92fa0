// The ingest benchmark's simulated units: one connection per device speaking its protocol (the
// simulator's login and report frames, its answer reader), each report timed until its ACK. Units
// of protocols without report ACKs are timed by nobody; OsmAnd's ACK is its HTTP response (phones:
// ingest-phones.ts).
import { connect } from 'node:net';
import type { Db } from '../tracker/storage/db.js';
import { ACKED_REPORTS, answerReader } from '../tracker/simulator/answers.js';
import { simIdentifier, type SimProtocol } from '../tracker/simulator/protocols.js';
import { protocolAt } from '../tracker/simulator/fleet.js';
import { osmandQueryString } from '../tracker/simulator/frames/osmand.js';
import type { DeviceFix } from '../tracker/simulator/frames/fix.js';
import { loginFrame, reportFrame } from '../tracker/simulator/reports.js';
import { openPhone } from './ingest-phones.js';

export type ProtocolChoice = SimProtocol | 'mixed';

export const imeiOf = (i: number) => `86${String(i).padStart(13, '0')}`;

export interface BenchUnit {
  protocol: SimProtocol;
  /** Sends one report of `fix`; its ACK latency (ms) goes to the fleet's latencies when it comes. */
  send(fix: DeviceFix): void;
  close(): void;
}

export interface BenchFleet {
  kind: ProtocolChoice;
  units: BenchUnit[];
  /** ACK latencies (ms) since the last reset, per protocol. */
  latencies: Map<SimProtocol, number[]>;
  /** Answers that refused a login or a report. */
  refusals: number;
  close(): void;
}

/** Registers units first..first+count-1 under the identifier each one's protocol knows it by. */
export async function registerUnits(db: Db, account: string, choice: ProtocolChoice, first: number, count: number): Promise<void> {
  const ids = Array.from({ length: count }, (_, k) => simIdentifier(protocolAt(choice, first + k), imeiOf(first + k)));
  await db.query(
    `INSERT INTO devices (id, account_id, imei, name) SELECT 'dev_' || lpad(n::text, 20, '0'), $1, imei, 'Unit ' || n
       FROM unnest($2::text[]) WITH ORDINALITY AS u(imei, k), LATERAL (SELECT $3::int + k::int - 1 AS n) AS numbered`,
    [account, ids, first],
  );
}

/** Connects units first..first+count-1 (TCP units logged in where the protocol answers a login), 500 at a time. */
export async function openFleet(choice: ProtocolChoice, first: number, count: number, target: { devicePort: number; osmandPort: number }): Promise<BenchFleet> {
  const fleet: BenchFleet = { kind: choice, units: [], latencies: new Map(), refusals: 0, close: () => undefined };
  const timed = (protocol: SimProtocol) => fleet.latencies.get(protocol) ?? fleet.latencies.set(protocol, []).get(protocol)!;
  const since = (at: bigint) => Number(process.hrtime.bigint() - at) / 1e6;

  const open = (i: number): Promise<BenchUnit> => {
    const protocol = protocolAt(choice, i);
    const id = simIdentifier(protocol, imeiOf(i));
    if (protocol === 'osmand') {
      const phone = openPhone(target.osmandPort, (status, at) => (status === 200 ? timed(protocol).push(since(at)) : fleet.refusals++));
      return Promise.resolve({ protocol, send: (fix) => phone.send(`/?${osmandQueryString(id, fix)}`), close: () => phone.close() });
    }
    return new Promise((resolve, reject) => {
      let serial = 0;
      const nextSerial = () => (serial = serial >= 0xfffe ? 1 : serial + 1);
      const socket = connect(target.devicePort, '127.0.0.1');
      const reader = answerReader(protocol);
      const pending: bigint[] = []; // send times of reports awaiting their ACK, in order
      const acked = ACKED_REPORTS.has(protocol);
      const unit: BenchUnit = {
        protocol,
        send(fix) {
          if (acked) pending.push(process.hrtime.bigint());
          socket.write(reportFrame(protocol, id, fix, {}, nextSerial));
        },
        close: () => socket.destroy(),
      };
      socket.once('error', reject);
      socket.on('data', (chunk: Buffer) => {
        for (const answer of reader.push(chunk)) {
          if (answer.kind === 'login') resolve(unit);
          if (answer.kind === 'refusal') fleet.refusals++;
          if (answer.kind === 'ack' && pending.length) timed(protocol).push(since(pending.shift()!));
        }
      });
      socket.once('connect', () => {
        const login = loginFrame(protocol, id, nextSerial);
        if (login) socket.write(login);
        else resolve(unit); // its reports name it
      });
    });
  };

  for (let i = 0; i < count; i += 500) fleet.units.push(...(await Promise.all(Array.from({ length: Math.min(500, count - i) }, (_, k) => open(first + i + k)))));
  fleet.close = () => {
    for (const u of fleet.units) u.close();
  };
  return fleet;
}
