-- PostGIS on both the server (PostgreSQL 15 / PostGIS 3.3) and the embedded PGlite (18 / 3.6).
create extension if not exists postgis;
