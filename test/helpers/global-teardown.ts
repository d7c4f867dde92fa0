// After the last suite: the empty embedded database the PGlite test databases were copied from goes.
import { rmSync } from 'node:fs';

export default function globalTeardown(): void {
  const template = process.env.FLEET_TEST_PGLITE_TEMPLATE;
  if (template) rmSync(template, { recursive: true, force: true });
}
