-- Indexes for large lists of users (see docs/benchmarks.md).

-- Lists order by "<field> ASC NULLS FIRST, id ASC" (or the exact reverse for -field), which the plain
-- unique index on username cannot serve: these let the first page, and the ids of a deep page, come
-- straight from an index instead of a sort of the whole table.
CREATE INDEX users_username_order_idx ON users (username ASC NULLS FIRST, id ASC);
CREATE INDEX users_email_order_idx ON users (email ASC NULLS FIRST, id ASC);

-- ?search= and the icontains filters are ILIKE '%term%', which no btree can serve. Trigram indexes
-- can, where the pg_trgm extension is available (PGlite ships it; on a PostgreSQL server it is part
-- of contrib and trusted, so the database owner may create it). Without it searches still work,
-- by scanning the table.
DO $$
BEGIN
  CREATE EXTENSION IF NOT EXISTS pg_trgm;
EXCEPTION WHEN OTHERS THEN
  RAISE NOTICE 'pg_trgm is not available (%): searches will scan the users table', SQLERRM;
END
$$;

DO $$
DECLARE
  trgm_schema text;
  col text;
BEGIN
  SELECT n.nspname INTO trgm_schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm';
  IF trgm_schema IS NULL THEN
    RETURN;
  END IF;
  FOREACH col IN ARRAY ARRAY['username', 'first_name', 'last_name', 'email'] LOOP
    EXECUTE format('CREATE INDEX %I ON users USING gin (%I %I.gin_trgm_ops)', 'users_' || col || '_trgm_idx', col, trgm_schema);
  END LOOP;
END
$$;
