/*
 * count_distinct 2.0.0 -> 4.0.0 (2.0.0: the previous implementation).
 *
 * 2.0.0's catalog depended on the server it was installed on and changed
 * during 2.0.0's development: the combine, serialize and deserialize
 * functions (with named parameters, as in 3.0.x) exist only where the server
 * had parallel aggregation, array_agg_distinct_elements and the final
 * function array_agg_distinct(internal, anyarray) only in later copies.  So
 * a function of this step (dropped at its end) looks at which of these are
 * members of the extension, and only members are moved aside, replaced or
 * dropped; array_agg_distinct_elements is created with a plain CREATE where
 * it is not a member.  Otherwise as 3.0.x--4.0.0.sql.
 */
CREATE FUNCTION @extschema@.count_distinct_update_2_0_0(step pg_catalog.text)
    RETURNS pg_catalog.void
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    ext     oid;
    nsp     name;
    f       record;
    member  boolean;
BEGIN
    SELECT e.oid, n.nspname INTO ext, nsp
    FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
    WHERE e.extname = 'count_distinct';

    /* the extension's member functions of the names this step handles */
    FOR f IN
        SELECT p.proname, p.prokind,
               (SELECT string_agg(format('%I.%I', tn.nspname, t.typname), ', ' ORDER BY u.i)
                FROM unnest(p.proargtypes::oid[]) WITH ORDINALITY u(a, i)
                JOIN pg_type t ON t.oid = u.a
                JOIN pg_namespace tn ON tn.oid = t.typnamespace) AS args,
               p.proargtypes
        FROM pg_depend d
        JOIN pg_proc p ON p.oid = d.objid
        WHERE d.classid = 'pg_proc'::regclass AND d.refclassid = 'pg_extension'::regclass
          AND d.refobjid = ext AND d.deptype = 'e'
        ORDER BY p.proname, p.oid
    LOOP
        IF step = 'aside' AND f.proname IN ('count_distinct_combine', 'count_distinct_serial',
                                            'count_distinct_deserial') THEN
            EXECUTE format('ALTER FUNCTION %I.%I(%s) RENAME TO %I',
                           nsp, f.proname, f.args, f.proname || '_2_0');
        ELSIF step = 'drop' AND (f.proname IN ('count_distinct_combine_2_0', 'count_distinct_serial_2_0',
                                               'count_distinct_deserial_2_0')
                                 OR (f.proname = 'array_agg_distinct' AND f.prokind = 'f'
                                     AND f.proargtypes = array_to_string(ARRAY['internal', 'anyarray']::regtype[]::oid[], ' ')::oidvector)) THEN
            EXECUTE format('DROP FUNCTION %I.%I(%s)', nsp, f.proname, f.args);
        END IF;
    END LOOP;

    IF step = 'elements' THEN
        SELECT EXISTS (SELECT FROM pg_depend d JOIN pg_proc p ON p.oid = d.objid
                       WHERE d.classid = 'pg_proc'::regclass AND d.refclassid = 'pg_extension'::regclass
                         AND d.refobjid = ext AND d.deptype = 'e'
                         AND p.proname = 'array_agg_distinct_elements' AND p.prokind = 'a'
                         AND p.proargtypes = array_to_string(ARRAY['anyarray']::regtype[]::oid[], ' ')::oidvector)
        INTO member;
        EXECUTE format('CREATE %s AGGREGATE %I.array_agg_distinct_elements(pg_catalog.anyarray) ('
                       'SFUNC = %I.count_distinct_elements_append, STYPE = pg_catalog.internal, SSPACE = 80, '
                       'FINALFUNC = %I.array_agg_distinct_elements_final, FINALFUNC_EXTRA, '
                       'COMBINEFUNC = %I.count_distinct_combine, SERIALFUNC = %I.count_distinct_serial, '
                       'DESERIALFUNC = %I.count_distinct_deserial, PARALLEL = SAFE)',
                       CASE WHEN member THEN 'OR REPLACE' ELSE '' END, nsp, nsp, nsp, nsp, nsp, nsp);
    END IF;
END
$fn$;

SELECT @extschema@.count_distinct_update_2_0_0('aside'::pg_catalog.text);

/* transition functions: 4.0.0's library and attributes */
CREATE OR REPLACE FUNCTION @extschema@.count_distinct_append(pg_catalog.internal, pg_catalog.anyelement)
    RETURNS pg_catalog.internal
    AS 'MODULE_PATHNAME', 'count_distinct_append'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION @extschema@.count_distinct_elements_append(pg_catalog.internal, pg_catalog.anyarray)
    RETURNS pg_catalog.internal
    AS 'MODULE_PATHNAME', 'count_distinct_elements_append'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

/* new in 4.0.0 (where 2.0.0 had the first three, they were moved aside) */
CREATE FUNCTION @extschema@.count_distinct_combine(pg_catalog.internal, pg_catalog.internal)
    RETURNS pg_catalog.internal
    AS 'MODULE_PATHNAME', 'count_distinct_combine'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.count_distinct_serial(pg_catalog.internal)
    RETURNS pg_catalog.bytea
    AS 'MODULE_PATHNAME', 'count_distinct_serial'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.count_distinct_deserial(pg_catalog.bytea, pg_catalog.internal)
    RETURNS pg_catalog.internal
    AS 'MODULE_PATHNAME', 'count_distinct_deserial'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.count_distinct_final(pg_catalog.internal)
    RETURNS bigint
    AS 'MODULE_PATHNAME', 'count_distinct_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.array_agg_distinct_type_final(pg_catalog.internal, pg_catalog.anynonarray)
    RETURNS pg_catalog.anyarray
    AS 'MODULE_PATHNAME', 'array_agg_distinct_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.array_agg_distinct_elements_final(pg_catalog.internal, pg_catalog.anyarray)
    RETURNS pg_catalog.anyarray
    AS 'MODULE_PATHNAME', 'array_agg_distinct_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

/* the aggregates every 2.0.0 catalog has, in place */
CREATE OR REPLACE AGGREGATE @extschema@.count_distinct(pg_catalog.anyelement) (
    SFUNC = @extschema@.count_distinct_append,
    STYPE = pg_catalog.internal,
    SSPACE = 80,
    FINALFUNC = @extschema@.count_distinct_final,
    COMBINEFUNC = @extschema@.count_distinct_combine,
    SERIALFUNC = @extschema@.count_distinct_serial,
    DESERIALFUNC = @extschema@.count_distinct_deserial,
    PARALLEL = SAFE
);

CREATE OR REPLACE AGGREGATE @extschema@.count_distinct_elements(pg_catalog.anyarray) (
    SFUNC = @extschema@.count_distinct_elements_append,
    STYPE = pg_catalog.internal,
    SSPACE = 80,
    FINALFUNC = @extschema@.count_distinct_final,
    COMBINEFUNC = @extschema@.count_distinct_combine,
    SERIALFUNC = @extschema@.count_distinct_serial,
    DESERIALFUNC = @extschema@.count_distinct_deserial,
    PARALLEL = SAFE
);

CREATE OR REPLACE AGGREGATE @extschema@.array_agg_distinct(pg_catalog.anynonarray) (
    SFUNC = @extschema@.count_distinct_append,
    STYPE = pg_catalog.internal,
    SSPACE = 80,
    FINALFUNC = @extschema@.array_agg_distinct_type_final,
    FINALFUNC_EXTRA,
    COMBINEFUNC = @extschema@.count_distinct_combine,
    SERIALFUNC = @extschema@.count_distinct_serial,
    DESERIALFUNC = @extschema@.count_distinct_deserial,
    PARALLEL = SAFE
);

/* array_agg_distinct_elements: replaced where it is a member, else created */
SELECT @extschema@.count_distinct_update_2_0_0('elements'::pg_catalog.text);

/* no aggregate points at these any more */
DROP FUNCTION @extschema@.count_distinct(pg_catalog.internal);
DROP FUNCTION @extschema@.array_agg_distinct(pg_catalog.internal, pg_catalog.anynonarray);
SELECT @extschema@.count_distinct_update_2_0_0('drop'::pg_catalog.text);

DROP FUNCTION @extschema@.count_distinct_update_2_0_0(pg_catalog.text);
