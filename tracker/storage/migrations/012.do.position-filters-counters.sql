-- Position filters and server-computed counters. A flagged position keeps the filter that caught it
-- (NULL for every other); each device's running odometer and engine hours are kept beside the device
-- and written in the same transaction as the positions they come from, so a restart (or kill -9)
-- neither loses nor repeats a stretch.
ALTER TABLE positions ADD COLUMN filtered text CHECK (filtered IN ('zero', 'future', 'jump'));

CREATE TABLE device_counters (
  device_id    text PRIMARY KEY REFERENCES devices (id) ON DELETE CASCADE,
  -- device time of the last report counted: older ones (late records, re-sends) are not counted again
  report_time  timestamptz NOT NULL,
  odometer     double precision, -- metres
  engine_hours double precision, -- seconds
  ignition     boolean
);
