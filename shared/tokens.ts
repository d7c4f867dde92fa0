// API tokens are JWTs signed with ES256: the tracker holds the private key and mints, the gateway
// holds only the public key and verifies. Tokens carry no expiry (spec: they stop working when revoked).
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { isScope, type Scope } from './scopes.js';

export const TOKEN_ALGORITHM = 'ES256';
export const TOKEN_ISSUER = 'fleet-tracker';

export interface TokenClaims {
  tokenId: string;
  accountId: string;
  scopes: Scope[];
}

export function signToken(claims: TokenClaims, privateKey: KeyObject): string {
  return jwt.sign({ scope: claims.scopes.join(' ') }, privateKey, {
    algorithm: TOKEN_ALGORITHM,
    jwtid: claims.tokenId,
    subject: claims.accountId,
    issuer: TOKEN_ISSUER,
    noTimestamp: false,
  });
}

/** Verifies signature and shape; returns null for anything that is not a token of ours. */
export function verifyToken(token: string, publicKey: KeyObject): TokenClaims | null {
  try {
    const payload = jwt.verify(token, publicKey, { algorithms: [TOKEN_ALGORITHM], issuer: TOKEN_ISSUER });
    if (typeof payload !== 'object' || typeof payload.jti !== 'string' || typeof payload.sub !== 'string') return null;
    const scopes = typeof payload.scope === 'string' ? payload.scope.split(' ') : [];
    if (!scopes.every(isScope)) return null;
    return { tokenId: payload.jti, accountId: payload.sub, scopes: scopes as Scope[] };
  } catch {
    return null;
  }
}

export function privateKeyFrom(pem: string): KeyObject {
  return createPrivateKey(pem);
}

export function publicKeyFrom(pem: string): KeyObject {
  return createPublicKey(pem);
}
