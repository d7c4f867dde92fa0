// Password hashing: scrypt with the parameters stored in the hash, salted, compared in constant time.
import { describe, expect, test } from '@jest/globals';
import { hashPassword, newPassword, verifyNothing, verifyPassword } from '../../../tracker/users/passwords.js';

describe('passwords', () => {
  test('a hash names its parameters, is salted, and verifies only the right password', async () => {
    const [a, b] = await Promise.all([hashPassword('correct horse battery'), hashPassword('correct horse battery')]);
    expect(a).toMatch(/^scrypt\$15\$8\$3\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword('correct horse battery', a)).toBe(true);
    expect(await verifyPassword('correct horse batterY', a)).toBe(false);
    expect(await verifyPassword('', a)).toBe(false);
  });

  test('the same text typed in another Unicode form is the same password', async () => {
    const composed = 'café au lait bien chaud'; // é as one code point
    const decomposed = 'cafe\u0301 au lait bien chaud'; // e + combining accent
    expect(await verifyPassword(decomposed, await hashPassword(composed))).toBe(true);
  });

  test('a malformed stored value never verifies', async () => {
    for (const stored of ['', 'plain text', 'scrypt$15$8$3$c2FsdA==', 'bcrypt$2b$10$abc', 'scrypt$99$8$3$c2FsdA==$a2V5']) {
      expect(await verifyPassword('anything', stored)).toBe(false);
    }
  });

  test('checking against no user always fails', async () => {
    expect(await verifyNothing('correct horse battery')).toBe(false);
  });

  test('new passwords need 12 to 200 characters', () => {
    expect(newPassword.safeParse('eleven chr.').success).toBe(false);
    expect(newPassword.safeParse('twelve chars').success).toBe(true);
    expect(newPassword.safeParse('x'.repeat(201)).success).toBe(false);
  });
});
