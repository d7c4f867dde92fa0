// One-time links to set a dashboard password: printed by the operator CLI, random, stored as a
// digest, valid for DASHBOARD_PASSWORD_LINK_HOURS and spent by their first use.
import type { TrackerConfig } from '../../shared/config.js';
import type { Queryable } from '../storage/db.js';
import { storePasswordLink } from './repository.js';
import { digest, randomSecret } from './secrets.js';

export type LinkSettings = Pick<TrackerConfig, 'PUBLIC_BASE_URL' | 'DASHBOARD_PASSWORD_LINK_HOURS'>;

export const SET_PASSWORD_PATH = '/dashboard/set-password';

export async function issuePasswordLink(db: Queryable, userId: string, settings: LinkSettings): Promise<{ url: string; expiresAt: Date }> {
  const token = randomSecret();
  const expiresAt = new Date(Date.now() + settings.DASHBOARD_PASSWORD_LINK_HOURS * 3_600_000);
  await storePasswordLink(db, userId, digest(token), expiresAt);
  const url = new URL(SET_PASSWORD_PATH, settings.PUBLIC_BASE_URL);
  url.searchParams.set('token', token);
  return { url: url.toString(), expiresAt };
}
