-- The status last announced by a device_online / device_offline event. A device going offline is
-- announced only once it has stayed offline for DEVICE_OFFLINE_GRACE_SECONDS, so one that reconnects
-- for each report, or across a tracker restart, raises no events.
ALTER TABLE devices ADD COLUMN announced_status text CHECK (announced_status IN ('online', 'offline'));
-- What devices show today was announced when it happened.
UPDATE devices SET announced_status = status;
CREATE INDEX devices_offline_unannounced_idx ON devices (status_since) WHERE status = 'offline' AND announced_status = 'online';
