// Key material for tokens and for the gateway→tracker link. In production both come from settings;
// in embedded mode (no settings) they are generated into DATA_DIR/keys on first start and reused.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, type GatewayConfig, type TrackerConfig } from './config.js';

export interface KeyFiles {
  privateKeyPem: string;
  publicKeyPem: string;
  gatewaySecret: string;
}

const file = (dataDir: string, name: string) => join(dataDir, 'keys', name);

/** Creates the embedded key pair and gateway secret if absent (mode 0600, like all of DATA_DIR), then reads them. */
export function ensureEmbeddedKeys(dataDir: string): KeyFiles {
  mkdirSync(join(dataDir, 'keys'), { recursive: true, mode: 0o700 });
  if (!existsSync(file(dataDir, 'token-private.pem'))) {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    writeFileSync(file(dataDir, 'token-public.pem'), publicKey.export({ type: 'spki', format: 'pem' }), { mode: 0o600 });
    writeFileSync(file(dataDir, 'token-private.pem'), privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  }
  if (!existsSync(file(dataDir, 'gateway-secret'))) {
    writeFileSync(file(dataDir, 'gateway-secret'), randomBytes(32).toString('base64url'), { mode: 0o600 });
  }
  return {
    privateKeyPem: readFileSync(file(dataDir, 'token-private.pem'), 'utf8'),
    publicKeyPem: readFileSync(file(dataDir, 'token-public.pem'), 'utf8'),
    gatewaySecret: readFileSync(file(dataDir, 'gateway-secret'), 'utf8').trim(),
  };
}

/** PEM text given inline (with literal \n allowed, as in env files) or as a path to a file. */
function pem(value: string): string {
  if (value.includes('-----BEGIN')) return value.replaceAll('\\n', '\n');
  return readFileSync(value, 'utf8');
}

function partialSettings<T extends object>(config: T, names: (keyof T & string)[]): void {
  const given = names.filter((n) => config[n] !== undefined);
  if (given.length > 0 && given.length < names.length) {
    throw new ConfigError(`Invalid settings: ${names.join(', ')} must be set together (missing ${names.filter((n) => !given.includes(n)).join(', ')})`);
  }
}

/** The tracker's keys: settings when given, else the embedded ones. */
export function trackerKeys(config: TrackerConfig): KeyFiles {
  partialSettings(config, ['JWT_PRIVATE_KEY', 'JWT_PUBLIC_KEY', 'GATEWAY_SECRET']);
  if (config.JWT_PRIVATE_KEY && config.JWT_PUBLIC_KEY && config.GATEWAY_SECRET) {
    return { privateKeyPem: pem(config.JWT_PRIVATE_KEY), publicKeyPem: pem(config.JWT_PUBLIC_KEY), gatewaySecret: config.GATEWAY_SECRET };
  }
  return ensureEmbeddedKeys(config.DATA_DIR);
}

/** The gateway's keys: the public key and the link secret only; it can never mint a token. */
export function gatewayKeys(config: GatewayConfig): Omit<KeyFiles, 'privateKeyPem'> {
  partialSettings(config, ['JWT_PUBLIC_KEY', 'GATEWAY_SECRET']);
  if (config.JWT_PUBLIC_KEY && config.GATEWAY_SECRET) {
    return { publicKeyPem: pem(config.JWT_PUBLIC_KEY), gatewaySecret: config.GATEWAY_SECRET };
  }
  const { publicKeyPem, gatewaySecret } = ensureEmbeddedKeys(config.DATA_DIR);
  return { publicKeyPem, gatewaySecret };
}
