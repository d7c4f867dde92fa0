// What a device's own fields accept, for the operator CLI and the dashboard alike.
import { z } from 'zod';
import { requiredText } from '../../shared/validation.js';

export const IMEI_PATTERN = /^[0-9]{5,20}$/;

export const imei = z.string({ error: 'device identifier is required' }).trim().regex(IMEI_PATTERN, 'device identifier must be 5 to 20 digits');
export const deviceName = requiredText('device name', 200);
export const plate = z.string().trim().max(32, 'plate must be at most 32 characters');
