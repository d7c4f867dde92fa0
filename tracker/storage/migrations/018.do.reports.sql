-- Reports: trip detection settings, and the pieces of past days.
-- How the reports tell trips from stops (minimum trip distance and duration, minimum stop, longest
-- silence): per account and per unit, only the values set (the others come from the account, then
-- from the defaults in tracker/reports/settings.ts).
ALTER TABLE accounts ADD COLUMN trip_settings jsonb NOT NULL DEFAULT '{}';
ALTER TABLE device_settings ADD COLUMN trip_settings jsonb NOT NULL DEFAULT '{}';

-- The report pieces (tracker/reports/pieces.ts) of each unit's past UTC days, kept when a report
-- computes them and used again while the day's count of positions is unchanged: a late record
-- changes the count, and the day is computed again.
CREATE TABLE report_days (
  device_id text NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
  day       date NOT NULL,
  records   integer NOT NULL, -- positions of the day, valid or not, when the pieces were computed
  pieces    text NOT NULL,    -- JSON, compact (tracker/reports/day-cache.ts)
  PRIMARY KEY (device_id, day)
);
