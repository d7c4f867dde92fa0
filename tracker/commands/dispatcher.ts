// Delivers queued commands to devices connected to this process: at once when notified (from any
// tracker process, through the database), and on each connection for what waited. Expires what
// waited longer than COMMAND_TTL, and records replies.
import type { Counter } from 'prom-client';
import type { Logger } from '../../shared/logger.js';
import type { DeviceSessions } from '../ingest/sessions.js';
import type { Db } from '../storage/db.js';
import { COMMANDS_CHANNEL } from './queue.js';
import { claimQueued, deliverOldestSent, expireCommands, failCommand, type Command } from './repository.js';

const EXPIRE_EVERY_MS = 1000;

export class CommandDispatcher {
  private seq = 0;
  private unlisten: (() => Promise<void>) | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly db: Db,
    private readonly sessions: DeviceSessions,
    private readonly logger: Logger,
    /** Commands moved to each status (the tracker's fleet_commands_total). */
    private readonly outcomes: Counter<'status'>,
  ) {}

  async start(): Promise<void> {
    this.sessions.onOnline((deviceId) => void this.deliver(deviceId));
    this.unlisten = await this.db.listen(COMMANDS_CHANNEL, (payload) => {
      const { deviceId } = JSON.parse(payload) as { deviceId: string };
      if (this.sessions.get(deviceId)) void this.deliver(deviceId);
    });
    this.timer = setInterval(() => {
      this.expire().catch((err: unknown) => this.logger.error({ err }, 'command expiry failed'));
    }, EXPIRE_EVERY_MS).unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.unlisten?.();
  }

  private async expire(): Promise<void> {
    this.outcomes.inc({ status: 'expired' }, await expireCommands(this.db));
  }

  /** Sends every unexpired queued command of a device connected here. */
  async deliver(deviceId: string): Promise<void> {
    const conn = this.sessions.get(deviceId);
    if (!conn) return;
    try {
      await this.expire();
      for (const command of await claimQueued(this.db, deviceId)) {
        this.seq = (this.seq + 1) % 0x7fffffff;
        if (!conn.sendLocate(this.seq)) {
          await failCommand(this.db, command.id, `the ${conn.protocol} protocol has no locate command`);
          this.outcomes.inc({ status: 'failed' });
        } else {
          this.outcomes.inc({ status: 'sent' });
          this.logger.info({ deviceId, commandId: command.id }, 'command sent');
        }
      }
    } catch (err) {
      this.logger.error({ err, deviceId }, 'command delivery failed');
    }
  }

  /** A device answered a command. */
  async replied(deviceId: string, reply: string, position: Command['position']): Promise<void> {
    const command = await deliverOldestSent(this.db, deviceId, reply.slice(0, 2000), position);
    if (!command) return;
    this.outcomes.inc({ status: 'delivered' });
    this.logger.info({ deviceId, commandId: command.id }, 'command delivered');
  }
}
