// Input rules shared by every way in (public API, operator CLI, dashboard forms): one message per
// rule, naming the field, so a refusal reads the same wherever it comes from.
import { z } from 'zod';

/** Trimmed, non-empty text of at most `max` characters. */
export const requiredText = (what: string, max: number) =>
  z.string({ error: `${what} is required` }).trim().min(1, `${what} must not be empty`).max(max, `${what} must be at most ${max} characters`);

/** A name in an API body: trimmed, non-empty, at most `max` characters (the refusal names the field). */
export const nameField = (max: number) => z.string().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);

/** Optional free text in an API body: trimmed, at most `max` characters. */
export const textField = (max: number) => z.string().trim().max(max, `must be at most ${max} characters`);

/** The id of a record of the account, as a body or query names it. */
export const idField = z.string().min(1).max(64);

export const timestamp = z.iso.datetime({ offset: true }).meta({ description: 'ISO 8601 UTC timestamp (ends in Z)', example: '2026-11-21T09:30:00.000Z' });
