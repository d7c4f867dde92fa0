-- Periodic work done once across tracker processes (storage/periodic.ts): each job's last claimed
-- slot of its period on the database clock. The process whose upsert moves `slot` forward runs it.
CREATE TABLE scheduled_jobs (
  job text PRIMARY KEY,
  every_ms integer NOT NULL,
  slot bigint NOT NULL,
  claimed_at timestamptz NOT NULL DEFAULT now()
);
