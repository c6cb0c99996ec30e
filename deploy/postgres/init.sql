-- The consoles' database on the site's PostgreSQL (docs/site.md), run once
-- as the postgres superuser: psql -f init.sql. The console creates and
-- migrates its own tables at start; this gives it a role and a database.
CREATE ROLE bjmonitor_console LOGIN PASSWORD 'change-me';
CREATE DATABASE bjmonitor OWNER bjmonitor_console ENCODING 'UTF8';
REVOKE ALL ON DATABASE bjmonitor FROM PUBLIC;
-- pg_hba.conf: only the console boxes, over TLS, with a password:
-- hostssl bjmonitor bjmonitor_console 10.20.0.11/32 scram-sha-256
-- hostssl bjmonitor bjmonitor_console 10.20.0.12/32 scram-sha-256
