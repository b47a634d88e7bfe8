-- Login devices belong to one account and one password (docs/auth.md, "Login throttling"): a device row
-- names its user (deleted with the user, so a later account of the same name inherits nothing) and a
-- stamp of the password hash it was issued under (a device of an earlier password is no device). The
-- devices issued before knew neither and are forgotten: each browser is trusted again at its next login.
delete from login_devices;
alter table login_devices add column if not exists user_id bigint not null references users (id) on delete cascade;
alter table login_devices add column if not exists password_stamp text not null;
create index if not exists login_devices_user_idx on login_devices (user_id, last_used_at);
