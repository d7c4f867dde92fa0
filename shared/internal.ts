// The gateway→tracker link: the gateway proves itself with a shared secret and tells the tracker
// who is calling, from which address and over which protocol (as it worked them out behind its
// trusted proxy hops). The gateway drops any client-sent copy of these headers.
import { timingSafeEqual, createHash } from 'node:crypto';

export const INTERNAL_HEADERS = {
  secret: 'x-gateway-secret',
  accountId: 'x-account-id',
  tokenId: 'x-token-id',
  scopes: 'x-token-scopes',
  /** The client's address as the gateway saw it (behind TRUST_PROXY_HOPS proxies). */
  clientAddress: 'x-client-address',
  /** http or https, as the client reached the first trusted hop. */
  clientProto: 'x-client-proto',
} as const;

/** Constant-time comparison of secrets of any length (hashing first equalises the lengths). */
export function secretsEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb);
}
