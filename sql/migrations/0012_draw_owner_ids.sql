-- Draw files belong to accounts, not names (docs/draw.md, "Ownership"): the owner, the public editors,
-- and the author of each snapshot and publish refer to users (id). A name that matches no user becomes
-- no owner (or no editor, or no author). A removed user's files are owned by no one until an
-- administrator reassigns them; a new account that takes the old name inherits nothing.

alter table draw_files add column owner_id bigint references users (id) on delete set null;
-- The removed (or unmatched) owner's name, shown to administrators listing ownerless files; never read
-- for access.
alter table draw_files add column former_owner text;
update draw_files f set owner_id = u.id from users u where u.username = f.file_owner and not f.is_master;
update draw_files set former_owner = file_owner
where owner_id is null and not is_master and file_owner is not null;
drop index draw_files_owner;
alter table draw_files drop column file_owner;
create index draw_files_owner_id on draw_files (owner_id);

create table draw_file_editors (
  file_id bigint not null references draw_files (id) on delete cascade,
  user_id bigint not null references users (id) on delete cascade,
  primary key (file_id, user_id)
);
create index draw_file_editors_user on draw_file_editors (user_id);
insert into draw_file_editors (file_id, user_id)
select distinct f.id, u.id from draw_files f cross join unnest(f.public_editors) as e (name)
join users u on u.username = e.name;
alter table draw_files drop column public_editors;

alter table draw_history add column author_id bigint references users (id) on delete set null;
update draw_history h set author_id = u.id from users u where u.username = h.author;
alter table draw_history drop column author;

alter table draw_publishes add column author_id bigint references users (id) on delete set null;
update draw_publishes p set author_id = u.id from users u where u.username = p.author;
alter table draw_publishes drop column author;

-- Whatever path removes a user, their files keep the name they had, for the administrator's list.
create function draw_files_keep_former_owner() returns trigger language plpgsql as $$
begin
  update draw_files set former_owner = old.username where owner_id = old.id;
  return old;
end
$$;
create trigger users_draw_files_former_owner before delete on users
for each row execute function draw_files_keep_former_owner();
