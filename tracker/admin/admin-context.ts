// What every operator command runs with: the database, the token-signing key and the settings it
// prints links with.
import type { KeyObject } from 'node:crypto';
import type { TrackerConfig } from '../../shared/config.js';
import type { Db } from '../storage/db.js';

export interface AdminContext {
  db: Db;
  privateKey: KeyObject;
  /** Settings the commands print links with, and those outbound webhook targets obey. */
  config: Pick<TrackerConfig, 'PUBLIC_BASE_URL' | 'DASHBOARD_PASSWORD_LINK_HOURS' | 'WEBHOOK_ALLOW_HTTP' | 'WEBHOOK_ALLOW_PRIVATE' | 'MAX_TOKENS_PER_ACCOUNT'>;
}
