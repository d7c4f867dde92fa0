-- A device's running state lives in its devices row, beside its current position: the counters
-- (012) and the latest telemetry (014) had a table each, so every batch wrote three rows per device
-- and merged the telemetry in SQL. Now a batch reads and locks each device's row once, works out the
-- new state in the tracker and writes the row once (tracker/positions/device-state.ts).
ALTER TABLE devices
  -- room in each page for the new version of a row, so a batch's update need not touch the indexes
  -- (a HOT update)
  SET (fillfactor = 50),
  -- device time of the last report counted: older ones (late records, re-sends) are not counted again
  ADD COLUMN counter_time timestamptz,
  ADD COLUMN counter_odometer double precision, -- metres
  ADD COLUMN counter_engine_hours double precision, -- seconds
  ADD COLUMN counter_ignition boolean,
  -- per key the value and the device time it was reported at, as JSON text in the public API's shape
  -- {"battery": {"value": 12.4, "time": "…"}}: the devices list copies it as it is
  ADD COLUMN telemetry text NOT NULL DEFAULT '{}',
  -- the last few alarms, newest first
  ADD COLUMN alarms jsonb NOT NULL DEFAULT '[]';

UPDATE devices d SET counter_time = c.report_time, counter_odometer = c.odometer, counter_engine_hours = c.engine_hours, counter_ignition = c.ignition
FROM device_counters c WHERE c.device_id = d.id;
UPDATE devices d SET telemetry = t.telemetry::text, alarms = t.alarms FROM device_telemetry t WHERE t.device_id = d.id;

DROP TABLE device_counters;
DROP TABLE device_telemetry;
