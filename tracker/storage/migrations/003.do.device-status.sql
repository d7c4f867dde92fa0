-- Every online/offline change of a device, with its time (events are raised from these).
CREATE TABLE device_status_changes (
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  device_id  text NOT NULL REFERENCES devices (id),
  status     text NOT NULL CHECK (status IN ('online', 'offline')),
  at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX device_status_changes_device_idx ON device_status_changes (device_id, at);
