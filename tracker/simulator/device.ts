// One simulated device speaking its real protocol to a device port: it logs in, reports its
// position every interval, checks the answers the protocol gives (login, report ACKs), answers
// commands (locate with its fix, the others as the manufacturers' units confirm them), and can play
// scripted SOS, speeding and fuel drops.
import { connect, type Socket } from 'node:net';
import { answerReader, type Answer } from './answers.js';
import type { DeviceState } from './frames/fix.js';
import { gt06CommandReply, gt06WhereReply } from './frames/gt06.js';
import { h02CommandReply } from './frames/h02.js';
import { gps103Position } from './frames/gps103.js';
import { jt808CommandAnswer, jt808PositionAnswer } from './frames/jt808.js';
import { jt808 } from '../protocols/jt808/index.js';
import { readHeader } from '../protocols/jt808/message.js';
import type { Framer } from '../protocols/types.js';
import { osmandQueryString } from './frames/osmand.js';
import { teltonikaCommandResponse, teltonikaGetGpsReply } from './frames/teltonika.js';
import { tk103LocateReply } from './frames/tk103.js';
import { simIdentifier, type SimProtocol } from './protocols.js';
import { loginFrame, reportFrame } from './reports.js';
import { advance, toFix, type RouteState } from './route.js';

export type Scenario = 'sos' | 'speeding' | 'fuel-drop';

export interface SimTarget {
  host: string;
  /** The shared port, where the tracker recognises each protocol from its first bytes. */
  devicePort: number;
  osmandPort: number;
  /** A protocol's own port, used instead of the shared one for that protocol. */
  ports?: Partial<Record<SimProtocol, number>>;
}

/** JT/T 808 downlinks that answer the unit's own messages (general, registration, time, lock answers), not commands. */
const PLATFORM_ANSWERS = new Set([0x8001, 0x8100, 0x8109, 0x4401]);

export class SimulatedDevice {
  private socket: Socket | null = null;
  private serial = 1;
  private readonly nextSerial = () => this.serial++;
  private fuel = 60;
  private route: RouteState;
  private scenario: Scenario | null = null;
  private scenarioTicks = 0;
  reports = 0;
  /** Reports the tracker acknowledged as the protocol does (OsmAnd: a 2xx response). */
  acks = 0;
  /** JT/T 808 downlinks arrive escaped and may be split or merged in reads. */
  private jt808Framer: Framer | null = null;
  /** What a JT/T 808 unit answers 0x8105/0x8103 with: 0 success, 1 failure, 3 not supported. */
  jt808Result = 0;
  /** Whether the login was answered as accepted (protocols that answer it). */
  loggedIn = false;
  /** Answers that refuse the unit or a report (Teltonika 00, Ruptela 6400, Wialon #AD#-1, HTTP errors…). */
  refusals = 0;

  constructor(
    readonly protocol: SimProtocol,
    readonly imei: string,
    start: RouteState,
    private readonly target: SimTarget,
  ) {
    this.route = start;
  }

  /** What the tracker knows the unit by (simIdentifier). */
  get identifier(): string {
    return simIdentifier(this.protocol, this.imei);
  }

  /** Plays a scenario over the next reports (speeding for a while, a fuel drop, one SOS). */
  play(scenario: Scenario): void {
    this.scenario = scenario;
    this.scenarioTicks = scenario === 'speeding' ? 6 : scenario === 'fuel-drop' ? 3 : 1;
  }

  async connect(): Promise<void> {
    if (this.protocol === 'osmand') return;
    const reader = answerReader(this.protocol);
    const socket = connect(this.target.ports?.[this.protocol] ?? this.target.devicePort, this.target.host);
    this.socket = socket;
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    socket.on('error', () => undefined);
    socket.on('data', (data) => {
      for (const answer of reader.push(data)) this.onAnswer(answer);
    });
    const login = loginFrame(this.protocol, this.identifier, this.nextSerial);
    if (login) socket.write(login);
  }

  close(): void {
    this.socket?.destroy();
  }

  /** Moves by `seconds` and sends one report. */
  async tick(seconds: number): Promise<void> {
    if (this.protocol !== 'osmand' && (!this.socket || this.socket.destroyed)) return; // not connected: nothing is sent
    this.route = advance(this.route, seconds);
    const state: DeviceState = { ignition: this.route.speed > 0, fuelLevel: this.fuel, power: 12.6 };
    if (this.scenario && this.scenarioTicks-- > 0) {
      if (this.scenario === 'speeding') this.route = { ...this.route, speed: 130 };
      if (this.scenario === 'fuel-drop') this.fuel = Math.max(0, this.fuel - 8);
      if (this.scenario === 'sos') state.alarm = 'sos';
      state.fuelLevel = this.fuel;
    } else this.scenario = null;
    const fix = toFix(this.route);
    this.reports++;
    if (this.protocol !== 'osmand') {
      this.socket?.write(reportFrame(this.protocol, this.identifier, fix, state, this.nextSerial));
      return;
    }
    const res = await fetch(`http://${this.target.host}:${this.target.osmandPort}/?${osmandQueryString(this.imei, fix, state)}`, { method: 'POST' });
    const body = await res.text();
    if (res.ok) this.acks++;
    else this.refusals++;
    if (body.includes('locate')) await this.tick(0); // a phone answers locate with a report now
  }

  /** Commands the device was sent, as text (what a test or the operator can check it got). */
  readonly commands: string[] = [];

  private onAnswer({ kind, bytes: data }: Answer): void {
    if (kind === 'login') this.loggedIn = true;
    if (kind === 'ack') this.acks++;
    if (kind === 'refusal') this.refusals++;
    if (kind !== 'command') return;
    const fix = toFix(this.route);
    if (this.protocol === 'gt06' && data[3] === 0x80) {
      // Online command: the text after the 4-byte flag; the reply echoes the flag.
      const text = data.toString('ascii', 9, 9 + data[4]! - 4);
      this.commands.push(text);
      const answer = text === 'WHERE#' ? gt06WhereReply(fix) : `${text.replace(/#$/, '')}: Success!`;
      this.socket?.write(gt06CommandReply(answer, data.readUInt32BE(5), this.serial++));
    }
    if (this.protocol === 'teltonika' && data.length > 15 && data[8] === 0x0c && data[10] === 0x05) {
      const text = data.toString('latin1', 15, 15 + data.readUInt32BE(11));
      this.commands.push(text);
      this.socket?.write(teltonikaCommandResponse(text === 'getgps' ? teltonikaGetGpsReply(fix) : `${text} OK`));
    }
    const h02 = this.protocol === 'h02' ? /^\*HQ,[^,]+,(\w+),\d{6},?([^#]*)#/.exec(data.toString('latin1')) : null;
    if (h02) {
      // A V4 confirmation naming the command and its arguments, then the current position.
      this.commands.push(`${h02[1]},${h02[2]}`);
      this.socket?.write(h02CommandReply(this.imei, h02[1]!, h02[2] ? h02[2].split(',') : [], fix));
    }
    if (this.protocol === 'jt808') this.onJt808(data);
    // GPS103 "B" and TK103 AP00 ask for the position now.
    if (this.protocol === 'gps103' && data.toString('latin1').endsWith(',B')) this.socket?.write(gps103Position(this.imei, fix));
    if (this.protocol === 'tk103' && data.includes('AP00')) this.socket?.write(tk103LocateReply(this.identifier, fix));
  }

  /** A position query is answered with the fix (0x0201), any other command with the general answer (0x0001) and its result. */
  private onJt808(data: Buffer): void {
    this.jt808Framer ??= jt808.createFramer(4096);
    for (const frame of this.jt808Framer.push(data)) {
      const h = readHeader(frame);
      if (!h || PLATFORM_ANSWERS.has(h.type)) continue;
      this.commands.push(`0x${h.type.toString(16)} ${h.r.bytes(h.r.remaining).toString('hex')}`.trim());
      if (h.type === 0x8201) this.socket?.write(jt808PositionAnswer(this.imei, h.serial, toFix(this.route), this.serial++));
      else this.socket?.write(jt808CommandAnswer(this.imei, h.serial, h.type, this.serial++, this.jt808Result));
    }
  }
}
