-- How the reports tell trips from stops (minimum trip distance and duration, minimum stop, longest
-- silence): per account and per unit, only the values set (the others come from the account, then
-- from the defaults in tracker/reports/settings.ts).
ALTER TABLE accounts ADD COLUMN trip_settings jsonb NOT NULL DEFAULT '{}';
ALTER TABLE device_settings ADD COLUMN trip_settings jsonb NOT NULL DEFAULT '{}';
