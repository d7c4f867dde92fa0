// API token scopes (spec: Authentication).
export const SCOPES = ['read', 'write', 'commands'] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
