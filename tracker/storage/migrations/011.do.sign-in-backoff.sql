-- Failed sign-ins are counted per email address and client address together (a digest of both),
-- and past the allowance each further try waits until blocked_until, so failures from one address
-- cannot lock the owner out at another. Set-password forms are counted per client address.
DELETE FROM dashboard_login_failures WHERE kind = 'email';
ALTER TABLE dashboard_login_failures DROP CONSTRAINT dashboard_login_failures_kind_check;
ALTER TABLE dashboard_login_failures ADD CONSTRAINT dashboard_login_failures_kind_check CHECK (kind IN ('email_address', 'address', 'set_password'));
ALTER TABLE dashboard_login_failures ADD COLUMN blocked_until timestamptz;
