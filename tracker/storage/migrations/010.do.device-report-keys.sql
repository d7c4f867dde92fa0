-- An OsmAnd unit's report key, once set, is required with each of its reports. Only its SHA-256 is
-- kept: the key itself is shown once, when it is set.
ALTER TABLE devices ADD COLUMN report_key_hash bytea;
