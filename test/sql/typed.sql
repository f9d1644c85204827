-- Typed overloads (count_distinct_declare_type): which aggregate each call
-- resolves to, with and without them; the typed aggregates against native
-- results; plans unchanged.  Everything after BEGIN is rolled back.
SET extra_float_digits = 0;
SET jit = off;

-- Without Citus, the extension has only the polymorphic aggregates (and
-- the multi-argument count_distinct over "any").
SELECT p.oid::regprocedure AS aggregate
FROM pg_proc p JOIN pg_aggregate a ON a.aggfnoid = p.oid
WHERE p.proname LIKE '%distinct%' ORDER BY p.oid::regprocedure::text COLLATE "C";

-- resolves_to(EXPR): the aggregate EXPR calls and its result type, or the error
CREATE FUNCTION pg_temp.resolves_to(expr text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN
    EXECUTE format('CREATE TEMP VIEW cd_probe AS SELECT %s AS x FROM cd_cols', expr);
    SELECT d.refobjid::regprocedure || ' -> ' || format_type(a.atttypid, NULL) INTO r
    FROM pg_depend d, pg_attribute a
    WHERE d.classid = 'pg_rewrite'::regclass
      AND d.objid = (SELECT oid FROM pg_rewrite WHERE ev_class = 'cd_probe'::regclass)
      AND d.refclassid = 'pg_proc'::regclass
      AND d.refobjid IN (SELECT aggfnoid FROM pg_aggregate)
      AND a.attrelid = 'cd_probe'::regclass AND a.attname = 'x';
    DROP VIEW cd_probe;
    RETURN r;
EXCEPTION WHEN others THEN
    RETURN 'ERROR ' || SQLSTATE || ': ' || SQLERRM;
END $$;

CREATE DOMAIN d_int AS int4;
CREATE DOMAIN d_text AS text;
CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
CREATE TYPE pair AS (a int, b text);
CREATE TEMP TABLE cd_cols (vc varchar(10), bp char(3), di d_int, dt d_text, dia d_int[],
                           ia int[], m mood, p pair, rc regclass, c cidr, ch "char");
CREATE TEMP TABLE calls (expr text);
INSERT INTO calls VALUES
  ('count_distinct(''a'')'), ('count_distinct(NULL)'), ('count_distinct(1)'), ('count_distinct(1.5)'),
  ('array_agg_distinct(''a'')'), ('array_agg_distinct(NULL)'), ('array_agg_distinct(1)'),
  ('count_distinct(vc)'), ('array_agg_distinct(vc)'), ('array_agg_distinct(bp)'),
  ('count_distinct(di)'), ('array_agg_distinct(di)'), ('count_distinct(dt)'), ('array_agg_distinct(dt)'),
  ('count_distinct_elements(dia)'), ('array_agg_distinct_elements(dia)'),
  ('count_distinct(ia)'), ('count_distinct_elements(ia)'), ('array_agg_distinct_elements(ia)'),
  ('count_distinct_elements(ARRAY[''a''])'), ('count_distinct_elements(''{a}'')'),
  ('count_distinct(m)'), ('array_agg_distinct(m)'), ('count_distinct(p)'), ('array_agg_distinct(p)'),
  ('count_distinct(rc)'), ('array_agg_distinct(rc)'), ('array_agg_distinct(c)'), ('array_agg_distinct(ch)');
CREATE TEMP TABLE before AS SELECT expr, pg_temp.resolves_to(expr) AS resolves_to FROM calls;
SELECT * FROM before ORDER BY expr;

-- plans of the polymorphic aggregates, to compare with the typed ones
CREATE TABLE tp AS
SELECT i % 100 AS g, (i * 7919) % 5000 AS v, 'k' || (i * 31) % 977 AS s,
       ARRAY[i % 50, i % 7] AS a
FROM generate_series(1, 20000) i;
ANALYZE tp;
CREATE FUNCTION pg_temp.plan(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text; l text;
BEGIN
    r := '';
    FOR l IN EXECUTE 'EXPLAIN (COSTS OFF, VERBOSE) ' || q LOOP r := r || l || E'\n'; END LOOP;
    RETURN r;
END $$;
CREATE TEMP TABLE plan_queries (q text);
INSERT INTO plan_queries VALUES
  ('SELECT g, count_distinct(v), array_agg_distinct(s) FROM tp GROUP BY g'),
  ('SELECT count_distinct(s), count_distinct_elements(a) FROM tp'),
  ('SELECT g, array_agg_distinct_elements(a) FROM tp GROUP BY g');
SET max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE plans_before AS SELECT q, pg_temp.plan(q) AS plan FROM plan_queries;
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
INSERT INTO plans_before SELECT 'parallel ' || q, pg_temp.plan(q) FROM plan_queries;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;

BEGIN;
SELECT count_distinct_declare_builtin_types();
-- twice: harmless
SELECT count_distinct_declare_builtin_types();
SELECT count(*) AS typed_aggregates,
       count(DISTINCT p.proargtypes[0]) AS argument_types
FROM pg_proc p JOIN pg_aggregate a ON a.aggfnoid = p.oid
WHERE p.proname IN ('count_distinct', 'count_distinct_elements', 'array_agg_distinct', 'array_agg_distinct_elements')
  AND p.proargtypes[0] NOT IN ('anyelement'::regtype, 'anynonarray'::regtype, 'anyarray'::regtype, 'unknown'::regtype)
  AND p.pronargs = 1;

-- a typed aggregate has its template's options
SELECT a.aggfnoid::regprocedure, a.aggtransfn::regprocedure, a.aggfinalfn::regprocedure,
       a.aggcombinefn, a.aggserialfn, a.aggdeserialfn, a.aggfinalextra, a.aggfinalmodify,
       a.aggtransspace, a.aggmtransfn, p.proparallel, p.prorettype::regtype
FROM pg_aggregate a JOIN pg_proc p ON p.oid = a.aggfnoid
WHERE a.aggfnoid IN ('array_agg_distinct(anynonarray)'::regprocedure, 'array_agg_distinct(uuid)'::regprocedure,
                     'count_distinct(anyelement)'::regprocedure, 'count_distinct(int4)'::regprocedure,
                     'array_agg_distinct_elements(anyarray)'::regprocedure, 'array_agg_distinct_elements(text[])'::regprocedure)
ORDER BY a.aggfnoid::regprocedure::text COLLATE "C";
CREATE TEMP VIEW agg_options AS
SELECT p.oid, p.proname, p.proargtypes[0] AS argtype,
       to_jsonb(a) - 'aggfnoid' - 'aggtransfn' - 'aggfinalfn' - 'aggmtransfn' - 'aggminvtransfn' - 'aggmfinalfn'
       || jsonb_build_object('parallel', p.proparallel,
                             'fns', ARRAY(SELECT f.proname FROM unnest(ARRAY[a.aggtransfn, a.aggfinalfn, a.aggmtransfn,
                                                                              a.aggminvtransfn, a.aggmfinalfn]::oid[]) WITH ORDINALITY u(fn, i)
                                           LEFT JOIN pg_proc f ON f.oid = u.fn ORDER BY u.i)) AS options
FROM pg_proc p JOIN pg_aggregate a ON a.aggfnoid = p.oid
WHERE p.proname IN ('count_distinct', 'count_distinct_elements', 'array_agg_distinct', 'array_agg_distinct_elements')
  AND p.pronargs = 1;
-- every typed aggregate has the options of a polymorphic one of its name
SELECT count(*) AS typed, count(*) FILTER (WHERE NOT EXISTS (
           SELECT FROM agg_options t WHERE t.proname = o.proname AND t.options = o.options
             AND t.argtype IN ('anyelement'::regtype, 'anynonarray'::regtype, 'anyarray'::regtype))) AS options_differ
FROM agg_options o
WHERE o.argtype NOT IN ('anyelement'::regtype, 'anynonarray'::regtype, 'anyarray'::regtype);

-- what resolves differently now: domains resolve to their base type's
-- overload (array_agg_distinct gives the base type's array), and arrays of
-- a domain match several *_elements overloads
SELECT b.expr, b.resolves_to AS before, pg_temp.resolves_to(b.expr) AS now
FROM before b WHERE b.resolves_to IS DISTINCT FROM pg_temp.resolves_to(b.expr)
ORDER BY 1;

-- no built-in type resolves to another type's overload: every type with an
-- implicit cast to a declared type has an overload of its own
SELECT c.castsource::regtype, c.casttarget::regtype
FROM pg_cast c JOIN pg_type s ON s.oid = c.castsource
WHERE c.castcontext = 'i' AND s.typtype <> 'p'
  AND EXISTS (SELECT FROM pg_proc p WHERE p.proname = 'count_distinct' AND p.proargtypes[0] = c.casttarget)
  AND NOT EXISTS (SELECT FROM pg_proc p WHERE p.proname = 'count_distinct' AND p.proargtypes[0] = c.castsource)
  AND EXISTS (SELECT FROM pg_opclass o JOIN pg_am am ON am.oid = o.opcmethod
              WHERE am.amname = 'btree' AND o.opcdefault AND o.opcintype IN (c.castsource, c.casttarget))
  AND c.castsource NOT IN (SELECT oid FROM pg_type WHERE typname IN ('pg_node_tree', 'pg_ndistinct', 'pg_dependencies', 'pg_mcv_list'))
ORDER BY c.castsource::regtype::text COLLATE "C", c.casttarget::regtype::text COLLATE "C";

-- plans unchanged (the same plan shape, now with the typed aggregates)
SET max_parallel_workers_per_gather = 0;
SELECT count(*) FILTER (WHERE pg_temp.plan(q) IS DISTINCT FROM b.plan) AS serial_plans_differ
FROM plan_queries JOIN plans_before b USING (q);
SELECT pg_temp.plan('SELECT g, count_distinct(v), array_agg_distinct(s) FROM tp GROUP BY g');
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT count(*) FILTER (WHERE pg_temp.plan(pq.q) IS DISTINCT FROM b.plan) AS parallel_plans_differ
FROM plan_queries pq JOIN plans_before b ON b.q = 'parallel ' || pq.q;
RESET ALL;

-- every typed aggregate against native, serial and parallel, one group,
-- grouped, and the elements variants
CREATE TABLE typed_samples AS
SELECT typ, format(e, 'i') AS e FROM (VALUES
  ('int2', '(%1$s %% 50 - 25)::int2'), ('int4', '(%1$s * 7919 %% 500 - 250)::int4'),
  ('int8', '(%1$s %% 60)::int8 * 4294967296'), ('float4', '((%1$s %% 40) / 4.0 - 5)::float4'),
  ('float8', 'CASE WHEN %1$s %% 9 = 0 THEN ''-0''::float8 ELSE (%1$s %% 40) / 8.0 END'),
  ('numeric', '(%1$s %% 40) / CASE WHEN %1$s %% 2 = 0 THEN 1 ELSE 1.0 END'),
  ('money', '(%1$s %% 40)::money'), ('oid', '(%1$s %% 40)::oid'), ('bool', '%1$s %% 3 = 0'),
  ('"char"', 'chr(65 + %1$s %% 26)::"char"'), ('text', '''t'' || %1$s %% 50'),
  ('varchar', '(''v'' || %1$s %% 50)::varchar'), ('bpchar', '(''b'' || %1$s %% 30 || repeat('' '', %1$s %% 3))::bpchar'),
  ('name', '(''n'' || %1$s %% 30)::name'), ('bytea', '(''x'' || %1$s %% 30)::bytea'),
  ('uuid', 'md5((%1$s %% 30)::text)::uuid'), ('date', 'date ''2020-01-01'' + %1$s %% 60'),
  ('time', 'time ''00:00'' + (%1$s %% 60) * interval ''1 minute'''),
  ('timestamp', 'timestamp ''2020-01-01'' + (%1$s %% 60) * interval ''1 hour'''),
  ('timestamptz', 'timestamptz ''2020-01-01 00:00+00'' + (%1$s %% 60) * interval ''1 hour'''),
  ('interval', '(%1$s %% 30) * CASE WHEN %1$s %% 2 = 0 THEN interval ''1 day'' ELSE interval ''24 hours'' END'),
  ('inet', '(''10.0.'' || %1$s %% 30 || ''.1'')::inet'), ('cidr', '(''10.'' || %1$s %% 30 || ''.0.0/16'')::cidr'),
  ('jsonb', 'jsonb_build_object(''a'', (%1$s %% 30) / CASE WHEN %1$s %% 2 = 0 THEN 1 ELSE 1.0 END)'),
  ('regclass', '(%1$s %% 30)::oid::regclass'), ('regtype', '(%1$s %% 30)::oid::regtype'),
  ('regproc', '(%1$s %% 30)::oid::regproc'), ('regprocedure', '(%1$s %% 30)::oid::regprocedure'),
  ('regoper', '(%1$s %% 30)::oid::regoper'), ('regoperator', '(%1$s %% 30)::oid::regoperator'),
  ('regconfig', '(%1$s %% 30)::oid::regconfig'), ('regdictionary', '(%1$s %% 30)::oid::regdictionary'),
  ('regnamespace', '(%1$s %% 30)::oid::regnamespace'), ('regrole', '(%1$s %% 30)::oid::regrole'),
  ('regcollation', '(%1$s %% 30)::oid::regcollation'),
  ('mood', '(enum_range(NULL::mood))[1 + %1$s %% 3]'), ('pair', 'ROW(%1$s %% 3, (%1$s %% 2)::text)::pair')
) v(typ, e);
SELECT count_distinct_declare_type('mood');
SELECT count_distinct_declare_type('pair');
CREATE FUNCTION pg_temp.check_typed(typ text, e text)
RETURNS TABLE (resolves_to text, counts_match bool, arrays_match bool, groups_match bool, elements_match bool)
LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format('CREATE TABLE tv AS SELECT i %% 10 AS g, CASE WHEN i %% 11 = 0 THEN NULL ELSE %s END AS v
                    FROM generate_series(1, 3000) i', e);
    resolves_to := pg_temp.resolves_to(format('count_distinct(NULL::%s)', typ)) || ', '
                   || pg_temp.resolves_to(format('array_agg_distinct_elements(NULL::%s[])', typ));
    RETURN QUERY EXECUTE $q$
      SELECT $1,
             (SELECT count_distinct(v) = count(DISTINCT v) FROM tv),
             (SELECT array_agg_distinct(v) = coalesce(array_agg(DISTINCT v ORDER BY v) FILTER (WHERE v IS NOT NULL), '{}') FROM tv),
             (SELECT bool_and(cd = nat AND ad = na) FROM (
                SELECT g, count_distinct(v) cd, count(DISTINCT v) nat, array_agg_distinct(v) ad,
                       coalesce(array_agg(DISTINCT v ORDER BY v) FILTER (WHERE v IS NOT NULL), '{}') na
                FROM tv GROUP BY g) s),
             (SELECT count_distinct_elements(a) = (SELECT count(DISTINCT v) FROM tv)
                     AND array_agg_distinct_elements(a) =
                         (SELECT array_agg(DISTINCT v ORDER BY v) FILTER (WHERE v IS NOT NULL) FROM tv)
                FROM (SELECT array_agg(v) a FROM tv) s)$q$ USING resolves_to;
    DROP TABLE tv;
END $$;
SET max_parallel_workers_per_gather = 0;
SELECT typ, c.* FROM typed_samples, pg_temp.check_typed(typ, e) c ORDER BY typ COLLATE "C";
-- forced parallel: partial aggregates, serialized states, combined
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET parallel_leader_participation = off;
SELECT count(*) FILTER (WHERE NOT (counts_match AND arrays_match AND groups_match AND elements_match)) AS differ
FROM typed_samples, pg_temp.check_typed(typ, e) c;
RESET ALL;

-- after declaring them, the enum, the composite type and domains resolve to
-- their own overloads
SELECT count_distinct_declare_type('d_int');
SELECT expr, pg_temp.resolves_to(expr) FROM calls
WHERE expr ~ '\((m|p|di|dia)\)' ORDER BY 1;
-- an array type: only count_distinct
SELECT count_distinct_declare_type('int4range[]');
SELECT p.oid::regprocedure FROM pg_proc p
WHERE 'int4range[]'::regtype IN (p.proargtypes[0], p.proargtypes[1], p.prorettype)
  AND p.proname LIKE '%distinct%' ORDER BY p.oid::regprocedure::text COLLATE "C";
SELECT count_distinct(x), count(DISTINCT x)
FROM (VALUES ('{"[1,2)","[3,4)"}'::int4range[]), ('{"[3,4)"}'), ('{"[1,1]","[3,4)"}'), (NULL)) v(x);
-- pseudo-types are refused
SELECT count_distinct_declare_type('anyelement');
ROLLBACK;

-- rolled back: only the extension's own aggregates again (the polymorphic ones
-- and count_distinct(unknown))
SELECT count(*) FROM pg_proc p JOIN pg_aggregate a ON a.aggfnoid = p.oid WHERE p.proname LIKE '%distinct%';
DROP TABLE tp;
DROP TYPE pair, mood CASCADE;
DROP DOMAIN d_int, d_text CASCADE;
