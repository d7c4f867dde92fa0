-- Commands sent from the dashboard: the signed-in user who sent it, where an API command has its
-- token id. The audit log of engine commands names one or the other; rows from before have neither.
ALTER TABLE commands ADD COLUMN user_id text;
