// Delivers queued commands to devices connected to this process: over a live connection at once
// when notified (from any tracker process, through the database) and on each connection for what
// waited; to a device on HTTP in the answer to its next report. Expires what waited longer than
// its time to live (every second in one tracker, and before each delivery here), and records replies, each with the command it answers.
import type { Counter } from 'prom-client';
import type { Logger } from '../../shared/logger.js';
import { commandSeqFor, encodeCommand } from '../protocols/registry.js';
import type { CommandType, ProtocolState } from '../protocols/types.js';
import type { Db } from '../storage/db.js';
import type { PeriodicJobs } from '../storage/periodic.js';
import type { DeviceLinks } from './device-links.js';
import { COMMANDS_CHANNEL } from './queue.js';
import { claimQueued, deliverSent, deviceIdentity, expireCommands, failCommand, recordSeq, type Command } from './repository.js';

const EXPIRE_EVERY_MS = 1000;

export class CommandDispatcher {
  private seq = 0;
  private unlisten: (() => Promise<void>) | null = null;
  /**
   * Devices on HTTP found with nothing queued, and not notified of a command since: their next
   * report is answered without a query (a phone reports every few seconds; a command is rare).
   */
  private readonly nothingQueued = new Set<string>();
  /**
   * Of those, the devices also found with no command awaiting its reply: a phone's every report
   * answers a sent locate, and is not looked up against the commands table until one is notified.
   */
  private readonly nothingSent = new Set<string>();
  /** Notifications heard so far: a claim that saw one arrive meanwhile marks nothing. */
  private notified = 0;
  private stopExpiry: (() => void) | null = null;

  constructor(
    private readonly db: Db,
    private readonly links: DeviceLinks,
    private readonly logger: Logger,
    /** Commands moved to each status (the tracker's fleet_commands_total). */
    private readonly outcomes: Counter<'status'>,
    private readonly jobs: PeriodicJobs,
    /** Told of commands whose status changed, as they are once written (the live feed). */
    private readonly changed: (commands: Command[]) => void = () => {},
  ) {}

  async start(): Promise<void> {
    this.links.onOnline((deviceId) => void this.deliver(deviceId));
    this.unlisten = await this.db.listen(
      COMMANDS_CHANNEL,
      (payload) => {
        const { deviceId } = JSON.parse(payload) as { deviceId: string };
        this.notified++;
        this.nothingQueued.delete(deviceId);
        this.nothingSent.delete(deviceId);
        if (this.links.get(deviceId)) void this.deliver(deviceId);
      },
      // Notifications were lost while the connection was down: every device is asked again.
      () => {
        this.nothingQueued.clear();
        this.nothingSent.clear();
      },
    );
    this.stopExpiry = this.jobs.every('command-expiry', EXPIRE_EVERY_MS, () => this.expire());
  }

  async stop(): Promise<void> {
    this.stopExpiry?.();
    await this.unlisten?.();
  }

  private async expire(): Promise<void> {
    const expired = await expireCommands(this.db);
    this.outcomes.inc({ status: 'expired' }, expired.length);
    if (expired.length > 0) this.changed(expired);
  }

  /** Sends every unexpired queued command of a device with a live connection here. */
  async deliver(deviceId: string): Promise<void> {
    const conn = this.links.get(deviceId);
    // A device on HTTP takes its commands with its next report (collect): claimed now, they would
    // count as sent while nothing carries them.
    if (!conn?.write) return;
    try {
      await this.expire();
      for (const command of await claimQueued(this.db, deviceId)) {
        const bytes = await this.encode(deviceId, conn.protocol, command, conn.session);
        if (bytes) conn.write(bytes);
      }
    } catch (err) {
      this.logger.error({ err, deviceId }, 'command delivery failed');
    }
  }

  /**
   * Claims the unexpired queued commands of a device reporting over HTTP, encoded for the answer to
   * its report. A device found with none is not asked again until a command for it is notified.
   */
  async collect(deviceId: string, protocol: string): Promise<Buffer[]> {
    if (this.nothingQueued.has(deviceId)) return [];
    const notified = this.notified;
    const claimed = await claimQueued(this.db, deviceId);
    // A command queued after the claim read the table is notified after it committed: heard
    // before this line, nothing is marked; heard after, it unmarks the device.
    if (claimed.length === 0 && notified === this.notified) this.nothingQueued.add(deviceId);
    const out: Buffer[] = [];
    for (const command of claimed) {
      const bytes = await this.encode(deviceId, protocol, command);
      if (bytes) out.push(bytes);
    }
    return out;
  }

  /**
   * A claimed (now sent) command's bytes; a protocol without the command, or unable to carry its
   * attributes, fails it instead. Either way its new status is told.
   */
  private async encode(deviceId: string, protocol: string, command: Command, session?: ProtocolState): Promise<Buffer | null> {
    // Starts away from 0: units that echo no flag answer with zeros, which must match no command.
    this.seq = (this.seq % 0x7ffffffe) + 1;
    const seq = commandSeqFor(protocol, this.seq);
    const params = { ...command.attributes, identity: await deviceIdentity(this.db, deviceId) };
    let bytes: Buffer | null;
    let error = `the ${protocol} protocol has no ${command.type} command`;
    try {
      bytes = encodeCommand(protocol, command.type as CommandType, seq, params, session);
    } catch (err) {
      bytes = null;
      error = (err as Error).message;
    }
    if (!bytes) {
      // Queued before the device first connected, or under another protocol: the API refuses the rest up front.
      this.changed([await failCommand(this.db, command.id, error)]);
      this.outcomes.inc({ status: 'failed' });
      return null;
    }
    await recordSeq(this.db, command.id, seq);
    this.changed([command]);
    this.outcomes.inc({ status: 'sent' });
    this.logger.info({ deviceId, commandId: command.id }, 'command sent');
    return bytes;
  }

  /**
   * A device answered a command; `seq` is the number the reply echoes, where the protocol has one.
   * A reply saying the unit refused or could not run it fails the command instead.
   */
  async replied(deviceId: string, reply: string, position: Command['position'], seq?: number, failed = false): Promise<void> {
    if (this.nothingSent.has(deviceId)) return;
    // Nothing queued (and no notification since) and, at the end of this lookup, still none heard:
    // no command can be sent to the device, so none can await its reply, until one is notified.
    const idle = this.nothingQueued.has(deviceId);
    const notified = this.notified;
    const command = await deliverSent(this.db, deviceId, seq, reply.slice(0, 2000), position, failed);
    if (!command && idle && notified === this.notified) this.nothingSent.add(deviceId);
    if (!command) return;
    this.changed([command]);
    this.outcomes.inc({ status: command.status });
    this.logger.info({ deviceId, commandId: command.id, status: command.status }, 'command answered');
  }
}
