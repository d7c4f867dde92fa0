-- Reports: a kept day is no longer checked by counting its positions on every report. Whatever
-- stores positions into a day that has ended marks it changed (pieces null, generation moved on), in
-- its own transaction; the day is computed again, and kept only if no mark came meanwhile (the
-- generation read before the positions is still the row's). The rows kept so far were checked by
-- their counts alone: they are computed again.
DELETE FROM report_days;
ALTER TABLE report_days DROP COLUMN records;
ALTER TABLE report_days ALTER COLUMN pieces DROP NOT NULL; -- null: changed since, to be computed again
ALTER TABLE report_days ADD COLUMN generation integer NOT NULL DEFAULT 0;
