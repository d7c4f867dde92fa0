// Input rules shared by every way in (operator CLI, dashboard forms): one message per rule, naming
// the field, so a refusal reads the same wherever it comes from.
import { z } from 'zod';

/** Trimmed, non-empty text of at most `max` characters. */
export const requiredText = (what: string, max: number) =>
  z.string({ error: `${what} is required` }).trim().min(1, `${what} must not be empty`).max(max, `${what} must be at most ${max} characters`);
