-- The fuel rule's readings leave its stored state: the tracker keeps the window in memory and reads
-- it back from the positions when it holds none, so the state changes only when a flag does. What
-- is left of a unit's fuel state is its flags; a state with nothing left is dropped.
UPDATE device_rule_state SET state = (state::jsonb #- '{fuel,readings}')::text WHERE state::jsonb -> 'fuel' ? 'readings';
UPDATE device_rule_state SET state = (state::jsonb - 'fuel')::text WHERE state::jsonb -> 'fuel' = '{}'::jsonb;
DELETE FROM device_rule_state WHERE state::jsonb - 't' = '{}'::jsonb;
