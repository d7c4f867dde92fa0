-- Position attributes become the telemetry vocabulary (tracker/positions/telemetry.ts as of this
-- migration): keys outside it (Teltonika's generationType, gnssStatus, sleepMode, fuel1/fuel2, the
-- H02 status word, OsmAnd parameters and extras with no Traccar meaning…) move under `io`, where
-- decoders now put them, and engineHours goes from hours to seconds. Custom rules that name a moved
-- key are pointed at its new place, so they keep firing on the rows written from now on.
CREATE TEMPORARY TABLE telemetry_keys AS
SELECT unnest(ARRAY[
  'ignition', 'motion', 'odometer', 'tripOdometer', 'engineHours', 'fuel', 'fuelLevel', 'fuelUsed', 'battery',
  'batteryLevel', 'power', 'charge', 'rssi', 'hdop', 'pdop', 'accuracy', 'alarm', 'driverUniqueId', 'input', 'output',
  'door', 'blocked', 'armed', 'rpm', 'obdSpeed', 'coolantTemp', 'throttle', 'engineLoad', 'vin', 'iccid', 'priority',
  'event', 'archive', 'result'
]) AS key;
-- Kept where they are: vocabulary keys, numbered keys (temp1, adc2, in3, out1…) and an io object.
CREATE FUNCTION pg_temp.stays(key text, value jsonb) RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT key IN (SELECT t.key FROM telemetry_keys t) OR key ~ '^(temp|adc|in|out)[1-9][0-9]{0,2}$' OR (key = 'io' AND jsonb_typeof(value) = 'object')
$$;

UPDATE positions SET attributes =
  (SELECT coalesce(jsonb_object_agg(e.key, e.value), '{}'::jsonb) FROM jsonb_each(attributes) e WHERE pg_temp.stays(e.key, e.value) AND e.key <> 'io')
  || jsonb_build_object('io',
    coalesce((SELECT e.value FROM jsonb_each(attributes) e WHERE e.key = 'io' AND pg_temp.stays(e.key, e.value)), '{}'::jsonb)
    || (SELECT jsonb_object_agg(e.key, e.value) FROM jsonb_each(attributes) e WHERE NOT pg_temp.stays(e.key, e.value)))
WHERE EXISTS (SELECT 1 FROM jsonb_each(attributes) e WHERE NOT pg_temp.stays(e.key, e.value));

UPDATE positions SET attributes = jsonb_set(attributes, '{engineHours}', to_jsonb((attributes ->> 'engineHours')::numeric * 3600))
WHERE jsonb_typeof(attributes -> 'engineHours') = 'number';

-- "attributes.<key>…" in a condition (a var, missing or missing_some name) whose key moved.
UPDATE rules SET condition = regexp_replace(condition::text, x.moved, '"attributes.io.', 'g')::jsonb, updated_at = now()
FROM (
  SELECT '"attributes\.(?!(?:' || string_agg(key, '|') || '|io|(?:temp|adc|in|out)[1-9][0-9]{0,2})[".])(?=[A-Za-z0-9_]+[".])' AS moved FROM telemetry_keys
) x
WHERE condition::text ~ x.moved;

DROP FUNCTION pg_temp.stays(text, jsonb);
DROP TABLE telemetry_keys;
