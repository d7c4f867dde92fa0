// A GT06 unit as a fleet behind a balancer needs it: it reconnects after its reconnect interval
// when its connection drops (as units do when their server goes away), remembers the fix time of
// every report the tracker ACKed (so a test can check none is missing from history), raises an SOS
// on demand and answers commands, noting when each arrived.
import { connect, type Socket } from 'node:net';
import { answerReader } from '../../../tracker/simulator/answers.js';
import type { DeviceFix } from '../../../tracker/simulator/frames/fix.js';
import { gt06Alarm, gt06CommandReply, gt06Login, gt06Position, gt06WhereReply } from '../../../tracker/simulator/frames/gt06.js';

const PROTO_POSITION = 0x22;
const PROTO_ALARM = 0x16;

export interface ReceivedCommand {
  text: string;
  at: number;
}

export class RecordingDevice {
  private socket: Socket | null = null;
  private serial = 1;
  private lastSecond = 0;
  /** Reports sent on the current connection and not ACKed yet: serial → fix time (ms). */
  private pending = new Map<number, number>();
  /** Alarms sent on the current connection and not ACKed yet, by serial. */
  private pendingAlarms = new Set<number>();
  private stopped = false;
  loggedIn = false;
  /** Fix times (ms) of the reports the tracker ACKed. */
  readonly acked: number[] = [];
  /** Alarms the tracker ACKed (each stored with its event). */
  alarmsAcked = 0;
  readonly commands: ReceivedCommand[] = [];
  /** Logins answered, first connection included. */
  logins = 0;
  /** Date.now() when the current connection's login was answered. */
  loggedInAt = 0;

  constructor(
    readonly imei: string,
    private readonly port: number,
    private readonly place: { lat: number; lng: number },
    private readonly reconnectMs: number,
  ) {}

  /** Connects and logs in; resolves once the login is answered. */
  async connect(): Promise<void> {
    this.loggedIn = false;
    this.pending.clear();
    this.pendingAlarms.clear();
    const reader = answerReader('gt06');
    const socket = connect(this.port, '127.0.0.1');
    this.socket = socket;
    const login = new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.once('close', () => reject(new Error(`${this.imei}: closed before its login was answered`)));
      socket.on('data', (data: Buffer) => {
        for (const { kind, bytes } of reader.push(data)) {
          if (kind === 'login') {
            this.loggedIn = true;
            this.loggedInAt = Date.now();
            this.logins++;
            resolve();
          }
          if (kind === 'ack' && bytes[3] === PROTO_POSITION) this.onAck(bytes.readUInt16BE(4));
          if (kind === 'ack' && bytes[3] === PROTO_ALARM && this.pendingAlarms.delete(bytes.readUInt16BE(4))) this.alarmsAcked++;
          if (kind === 'command') this.onCommand(bytes);
        }
      });
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      if (this.socket !== socket) return;
      this.loggedIn = false;
      this.socket = null;
      if (!this.stopped) setTimeout(() => void this.reconnect(), this.reconnectMs).unref();
    });
    socket.write(gt06Login(this.imei, this.nextSerial()));
    await login;
  }

  private async reconnect(): Promise<void> {
    if (this.stopped) return;
    // A refused or dropped attempt closes the socket, and its close schedules the next one.
    await this.connect().catch(() => undefined);
  }

  private nextSerial(): number {
    this.serial = (this.serial % 0xffff) + 1;
    return this.serial;
  }

  /** A fix at a new whole second (history is keyed by device and fix time). */
  private fix(): DeviceFix {
    this.lastSecond = Math.max(Math.floor(Date.now() / 1000), this.lastSecond + 1);
    return { time: new Date(this.lastSecond * 1000), ...this.place, speed: 0, heading: 0, satellites: 9 };
  }

  /** Sends one position report when logged in; false when there is no connection to send it on. */
  report(): boolean {
    if (!this.socket || !this.loggedIn) return false;
    const fix = this.fix();
    const serial = this.nextSerial();
    this.pending.set(serial, fix.time.getTime());
    this.socket.write(gt06Position(fix, { ignition: false }, serial));
    return true;
  }

  /** Raises an SOS alarm with a fix; false when not connected. */
  sos(): boolean {
    if (!this.socket || !this.loggedIn) return false;
    const serial = this.nextSerial();
    this.pendingAlarms.add(serial);
    this.socket.write(gt06Alarm(this.fix(), 'sos', {}, serial));
    return true;
  }

  private onAck(serial: number): void {
    const time = this.pending.get(serial);
    if (time === undefined) return;
    this.pending.delete(serial);
    this.acked.push(time);
  }

  private onCommand(frame: Buffer): void {
    if (frame[3] !== 0x80) return;
    const text = frame.toString('ascii', 9, 9 + frame[4]! - 4);
    this.commands.push({ text, at: Date.now() });
    const answer = text === 'WHERE#' ? gt06WhereReply(this.fix()) : `${text.replace(/#$/, '')}: Success!`;
    this.socket?.write(gt06CommandReply(answer, frame.readUInt32BE(5), this.nextSerial()));
  }

  close(): void {
    this.stopped = true;
    this.socket?.destroy();
  }
}

/** Devices reporting every intervalMs, spread evenly over the interval, until stopped. */
export function reportEvery(devices: RecordingDevice[], intervalMs: number): { stop(): void } {
  const timers: NodeJS.Timeout[] = [];
  devices.forEach((d, i) => {
    timers.push(
      setTimeout(() => {
        d.report();
        timers.push(setInterval(() => d.report(), intervalMs));
      }, (i / devices.length) * intervalMs),
    );
  });
  return { stop: () => timers.forEach((t) => clearTimeout(t)) };
}
