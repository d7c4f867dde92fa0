-- The rules' state is rewritten for every unit reporting fuel in every batch (its last minute of
-- readings) and is read only by the tracker, which parses it itself: kept as JSON text, stored as it
-- comes, where jsonb parsed every number of it on the way in and printed it again on the way out. Room
-- in each page for a row's next version, so the batch's update need not touch the index (HOT).
ALTER TABLE device_rule_state ALTER COLUMN state TYPE text USING state::text, SET (fillfactor = 50);
