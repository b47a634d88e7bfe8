-- A feature's time read with a client's `format` (docs/geodatasets-read.md, "Time"): `to_timestamp` raises
-- on a text the pattern does not fit, and one such feature made every read with that filter a 400, for the
-- whole dataset. This reads it as no time (null) instead, as an unreadable ISO 8601 text already is.
create or replace function mmgis_to_timestamp_or_null(t text, format text) returns timestamptz
language plpgsql stable parallel safe as $$
begin
  return to_timestamp(t, format);
exception when others then
  return null;
end;
$$;
