/* count_distinct 4.2.0 */

/*
 * The update scripts (count_distinct--OLD--4.2.0.sql) are built from this
 * file (see sql/update/): every object here is created with CREATE OR
 * REPLACE, or, for objects that have no such statement (the distinct_set
 * type, its operators and operator classes), only if it does not exist yet,
 * so that the same statements also bring an existing catalog of an older
 * version up to this one.
 */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION count_distinct" to load this file. \quit

/* transition functions: add one value / all elements of one array */
CREATE OR REPLACE FUNCTION count_distinct_append(internal, anyelement)
    RETURNS internal
    AS 'MODULE_PATHNAME', 'count_distinct_append'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION count_distinct_elements_append(internal, anyarray)
    RETURNS internal
    AS 'MODULE_PATHNAME', 'count_distinct_elements_append'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

/* combine, serialize, deserialize: shared by all four aggregates */
CREATE OR REPLACE FUNCTION count_distinct_combine(internal, internal)
    RETURNS internal
    AS 'MODULE_PATHNAME', 'count_distinct_combine'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION count_distinct_serial(internal)
    RETURNS bytea
    AS 'MODULE_PATHNAME', 'count_distinct_serial'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION count_distinct_deserial(bytea, internal)
    RETURNS internal
    AS 'MODULE_PATHNAME', 'count_distinct_deserial'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

/* final functions */
CREATE OR REPLACE FUNCTION count_distinct_final(internal)
    RETURNS bigint
    AS 'MODULE_PATHNAME', 'count_distinct_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION array_agg_distinct_type_final(internal, anynonarray)
    RETURNS anyarray
    AS 'MODULE_PATHNAME', 'array_agg_distinct_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION array_agg_distinct_elements_final(internal, anyarray)
    RETURNS anyarray
    AS 'MODULE_PATHNAME', 'array_agg_distinct_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION array_agg_distinct_array_final(internal, anyarray)
    RETURNS anyarray
    AS 'MODULE_PATHNAME', 'array_agg_distinct_array_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

/*
 * moving-aggregate mode (window frames): add / remove one row, and final
 * functions that only read the state
 */
CREATE OR REPLACE FUNCTION count_distinct_moving_append(internal, anyelement)
    RETURNS internal
    AS 'MODULE_PATHNAME', 'count_distinct_moving_append'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION count_distinct_moving_remove(internal, anyelement)
    RETURNS internal
    AS 'MODULE_PATHNAME', 'count_distinct_moving_remove'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION count_distinct_elements_moving_append(internal, anyarray)
    RETURNS internal
    AS 'MODULE_PATHNAME', 'count_distinct_elements_moving_append'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION count_distinct_elements_moving_remove(internal, anyarray)
    RETURNS internal
    AS 'MODULE_PATHNAME', 'count_distinct_elements_moving_remove'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION count_distinct_moving_final(internal)
    RETURNS bigint
    AS 'MODULE_PATHNAME', 'count_distinct_moving_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION array_agg_distinct_type_moving_final(internal, anynonarray)
    RETURNS anyarray
    AS 'MODULE_PATHNAME', 'array_agg_distinct_moving_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION array_agg_distinct_elements_moving_final(internal, anyarray)
    RETURNS anyarray
    AS 'MODULE_PATHNAME', 'array_agg_distinct_moving_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION array_agg_distinct_array_moving_final(internal, anyarray)
    RETURNS anyarray
    AS 'MODULE_PATHNAME', 'array_agg_distinct_array_moving_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

/*
 * SSPACE: a new group's state, measured under hash aggregation (PostgreSQL
 * 15): 64 bytes for fixed-width keys (one header-free slot), 88 bytes for
 * variable-size keys (one 64-byte chunk holding the set's header and its
 * first entries, with its chunk header).  The polymorphic aggregates
 * declare the larger:
 * the typed overloads cover the fixed-width types.  Groups that grow are
 * handled by spilling hash aggregation.
 *
 * FINALFUNC_MODIFY = SHAREABLE: the final functions compact the set
 * (same values, another layout), which other final functions sharing the
 * state may still read.  A window function needs a READ_ONLY final
 * function, so PostgreSQL runs every window frame in moving-aggregate mode
 * (MSFUNC, MINVFUNC, MFINALFUNC: a state that counts each value's rows, so
 * rows can leave the frame), running frames included.  MSSPACE: the state
 * before any value (its hash table or tree comes with the first).
 */
CREATE OR REPLACE AGGREGATE count_distinct(anyelement) (
    SFUNC = count_distinct_append,
    STYPE = internal,
    SSPACE = 88,
    FINALFUNC = count_distinct_final,
    FINALFUNC_MODIFY = SHAREABLE,
    COMBINEFUNC = count_distinct_combine,
    SERIALFUNC = count_distinct_serial,
    DESERIALFUNC = count_distinct_deserial,
    MSFUNC = count_distinct_moving_append,
    MINVFUNC = count_distinct_moving_remove,
    MSTYPE = internal,
    MSSPACE = 128,
    MFINALFUNC = count_distinct_moving_final,
    MFINALFUNC_MODIFY = READ_ONLY,
    PARALLEL = SAFE
);

CREATE OR REPLACE AGGREGATE count_distinct_elements(anyarray) (
    SFUNC = count_distinct_elements_append,
    STYPE = internal,
    SSPACE = 88,
    FINALFUNC = count_distinct_final,
    FINALFUNC_MODIFY = SHAREABLE,
    COMBINEFUNC = count_distinct_combine,
    SERIALFUNC = count_distinct_serial,
    DESERIALFUNC = count_distinct_deserial,
    MSFUNC = count_distinct_elements_moving_append,
    MINVFUNC = count_distinct_elements_moving_remove,
    MSTYPE = internal,
    MSSPACE = 128,
    MFINALFUNC = count_distinct_moving_final,
    MFINALFUNC_MODIFY = READ_ONLY,
    PARALLEL = SAFE
);

CREATE OR REPLACE AGGREGATE array_agg_distinct(anynonarray) (
    SFUNC = count_distinct_append,
    STYPE = internal,
    SSPACE = 88,
    FINALFUNC = array_agg_distinct_type_final,
    FINALFUNC_EXTRA,
    FINALFUNC_MODIFY = SHAREABLE,
    COMBINEFUNC = count_distinct_combine,
    SERIALFUNC = count_distinct_serial,
    DESERIALFUNC = count_distinct_deserial,
    MSFUNC = count_distinct_moving_append,
    MINVFUNC = count_distinct_moving_remove,
    MSTYPE = internal,
    MSSPACE = 128,
    MFINALFUNC = array_agg_distinct_type_moving_final,
    MFINALFUNC_EXTRA,
    MFINALFUNC_MODIFY = READ_ONLY,
    PARALLEL = SAFE
);

CREATE OR REPLACE AGGREGATE array_agg_distinct_elements(anyarray) (
    SFUNC = count_distinct_elements_append,
    STYPE = internal,
    SSPACE = 88,
    FINALFUNC = array_agg_distinct_elements_final,
    FINALFUNC_EXTRA,
    FINALFUNC_MODIFY = SHAREABLE,
    COMBINEFUNC = count_distinct_combine,
    SERIALFUNC = count_distinct_serial,
    DESERIALFUNC = count_distinct_deserial,
    MSFUNC = count_distinct_elements_moving_append,
    MINVFUNC = count_distinct_elements_moving_remove,
    MSTYPE = internal,
    MSSPACE = 128,
    MFINALFUNC = array_agg_distinct_elements_moving_final,
    MFINALFUNC_EXTRA,
    MFINALFUNC_MODIFY = READ_ONLY,
    PARALLEL = SAFE
);

/*
 * arrays of arrays: like native array_agg(anyarray), one more dimension
 * (arrays are variable-size keys: SSPACE as above)
 */
CREATE OR REPLACE AGGREGATE array_agg_distinct(anyarray) (
    SFUNC = count_distinct_append,
    STYPE = internal,
    SSPACE = 176,
    FINALFUNC = array_agg_distinct_array_final,
    FINALFUNC_EXTRA,
    FINALFUNC_MODIFY = SHAREABLE,
    COMBINEFUNC = count_distinct_combine,
    SERIALFUNC = count_distinct_serial,
    DESERIALFUNC = count_distinct_deserial,
    MSFUNC = count_distinct_moving_append,
    MINVFUNC = count_distinct_moving_remove,
    MSTYPE = internal,
    MSSPACE = 128,
    MFINALFUNC = array_agg_distinct_array_moving_final,
    MFINALFUNC_EXTRA,
    MFINALFUNC_MODIFY = READ_ONLY,
    PARALLEL = SAFE
);

/*
 * Typed overloads.
 *
 * Next to each polymorphic aggregate above, count_distinct_declare_type(T)
 * creates the same aggregate for one concrete type T: count_distinct(T),
 * count_distinct_elements(T[]), array_agg_distinct(T) and
 * array_agg_distinct_elements(T[]).  Callers that run the support functions
 * outside the executor, knowing only the aggregate's declared signature
 * (Citus's worker_partial_agg and coord_combine_agg), need a concrete
 * argument and result type; the executor runs a typed overload exactly as
 * the polymorphic one.
 *
 * Each typed aggregate is a copy of its polymorphic template's catalog entry
 * (every option: state type and size, combine, serialize and deserialize
 * functions, final function and its flags, moving-aggregate functions,
 * parallel safety), so options are written once, in the CREATE AGGREGATE
 * statements above.  Each polymorphic support function of the template gets
 * a twin with the same name and C symbol, declared with T (anyelement,
 * anynonarray) and T[] (anyarray) in place of the polymorphic types.
 * Templates that cannot apply to T are left out: for an array type T, only
 * count_distinct(T) is declared.  The aggregates go into the extension's
 * schema, next to the polymorphic ones; calling it again for the same type
 * is harmless.  It creates C functions, so it needs a superuser.
 *
 * Typed overloads change how some calls resolve, which is why the built-in
 * ones are installed only where Citus is (below): once count_distinct(int4)
 * and count_distinct(text) exist, a domain over int4 resolves to
 * count_distinct(int4) (so array_agg_distinct returns int4[], not the
 * domain's array type), an array of a domain matches several *_elements
 * overloads (ambiguous), and a type with an implicit cast to text that is
 * not declared itself (citext) resolves to count_distinct(text), with text's
 * equality.  Declaring the type itself restores its own semantics.
 */
CREATE OR REPLACE FUNCTION count_distinct_declare_type(type regtype)
    RETURNS void
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    ext     oid;        -- the extension
    nsp     text;       -- its schema, quoted
    t       pg_type;
    tname   text;       -- T as written in DDL
    aname   text;       -- T[]; NULL when T is an array or has no array type
    is_arr  boolean;    -- T is an array type (no anynonarray, no T[])
    agg     record;
    argsig  text;
    twins   text[];
    opts    text;
    ddl     text;
    poly    CONSTANT oid[] := ARRAY['anyelement', 'anynonarray', 'anyarray']::regtype[];
BEGIN
    SELECT e.oid, quote_ident(n.nspname) INTO ext, nsp
    FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
    WHERE e.extname = 'count_distinct';
    IF ext IS NULL THEN
        RAISE EXCEPTION 'extension "count_distinct" is not installed';
    END IF;

    SELECT * INTO t FROM pg_type WHERE oid = type;
    IF t.typtype = 'p' THEN
        RAISE EXCEPTION 'cannot declare typed count_distinct aggregates for pseudo-type %', type
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'The polymorphic aggregates accept every type already.';
    END IF;
    tname := format_type(type, NULL);
    is_arr := t.typelem <> 0 AND t.typlen = -1;
    IF NOT is_arr AND t.typarray <> 0 THEN
        aname := format_type(t.typarray, NULL);
    END IF;

    /* every polymorphic one-argument aggregate of the extension is a template */
    FOR agg IN
        SELECT p.proname, p.proargtypes[0] AS argtype, p.proparallel, a.*
        FROM pg_depend d
        JOIN pg_proc p ON p.oid = d.objid
        JOIN pg_aggregate a ON a.aggfnoid = p.oid
        WHERE d.classid = 'pg_proc'::regclass AND d.refclassid = 'pg_extension'::regclass
          AND d.refobjid = ext AND d.deptype = 'e'
          AND p.pronargs = 1 AND p.proargtypes[0] = ANY (poly)
        ORDER BY p.proname
    LOOP
        IF agg.aggkind <> 'n' OR agg.aggsortop <> 0 THEN
            RAISE EXCEPTION 'aggregate % has options count_distinct_declare_type cannot copy',
                agg.aggfnoid::regprocedure;
        END IF;
        argsig := CASE agg.argtype
            WHEN 'anyarray'::regtype THEN aname
            WHEN 'anynonarray'::regtype THEN CASE WHEN NOT is_arr THEN tname END
            ELSE tname END;
        CONTINUE WHEN argsig IS NULL;

        /* typed twins of its polymorphic support functions (C functions) */
        SELECT array_agg(format('CREATE OR REPLACE FUNCTION %I.%I(%s) RETURNS %s AS %L, %L '
                                'LANGUAGE c %s %s PARALLEL %s COST %s',
                                n.nspname, p.proname, sig.args, sig.ret, p.probin, p.prosrc,
                                CASE p.provolatile WHEN 'i' THEN 'IMMUTABLE' WHEN 's' THEN 'STABLE' ELSE 'VOLATILE' END,
                                CASE WHEN p.proisstrict THEN 'STRICT' ELSE 'CALLED ON NULL INPUT' END,
                                CASE p.proparallel WHEN 's' THEN 'SAFE' WHEN 'r' THEN 'RESTRICTED' ELSE 'UNSAFE' END,
                                p.procost)
                         ORDER BY p.oid)
        INTO twins
        FROM pg_proc p
        JOIN pg_namespace n ON n.oid = p.pronamespace
        JOIN pg_language l ON l.oid = p.prolang AND l.lanname = 'c'
        CROSS JOIN LATERAL (
            SELECT string_agg(m.typ, ', ' ORDER BY u.i) AS args,
                   count(*) FILTER (WHERE m.typ IS NULL) AS unmapped,
                   (SELECT CASE WHEN p.prorettype = ANY (poly) THEN
                               CASE p.prorettype WHEN 'anyarray'::regtype THEN aname ELSE tname END
                           ELSE format_type(p.prorettype, NULL) END) AS ret
            FROM unnest(p.proargtypes::oid[]) WITH ORDINALITY u(a, i)
            CROSS JOIN LATERAL (SELECT CASE u.a
                                    WHEN 'anyarray'::regtype THEN aname
                                    WHEN 'anyelement'::regtype THEN tname
                                    WHEN 'anynonarray'::regtype THEN CASE WHEN NOT is_arr THEN tname END
                                    ELSE format_type(u.a, NULL) END AS typ) m
        ) sig
        WHERE p.oid IN (agg.aggtransfn, agg.aggfinalfn, agg.aggcombinefn, agg.aggserialfn,
                        agg.aggdeserialfn, agg.aggmtransfn, agg.aggminvtransfn, agg.aggmfinalfn)
          AND (p.prorettype = ANY (poly) OR p.proargtypes::oid[] && poly)
          AND sig.unmapped = 0 AND sig.ret IS NOT NULL;
        FOREACH ddl IN ARRAY coalesce(twins, '{}') LOOP
            EXECUTE ddl;
        END LOOP;

        /*
         * The template's options; support functions by name, which resolves
         * to the typed twins (exact argument types) where there are some
         */
        opts := format('SFUNC = %s, STYPE = %s', agg.aggtransfn::regproc, format_type(agg.aggtranstype, NULL));
        IF agg.aggtransspace <> 0 THEN
            opts := opts || format(', SSPACE = %s', agg.aggtransspace);
        END IF;
        IF agg.agginitval IS NOT NULL THEN
            opts := opts || format(', INITCOND = %L', agg.agginitval);
        END IF;
        IF agg.aggfinalfn <> 0 THEN
            opts := opts || format(', FINALFUNC = %s', agg.aggfinalfn::regproc)
                || CASE WHEN agg.aggfinalextra THEN ', FINALFUNC_EXTRA' ELSE '' END
                || ', FINALFUNC_MODIFY = ' || CASE agg.aggfinalmodify
                       WHEN 'r' THEN 'READ_ONLY' WHEN 's' THEN 'SHAREABLE' ELSE 'READ_WRITE' END;
        END IF;
        IF agg.aggcombinefn <> 0 THEN
            opts := opts || format(', COMBINEFUNC = %s', agg.aggcombinefn::regproc);
        END IF;
        IF agg.aggserialfn <> 0 THEN
            opts := opts || format(', SERIALFUNC = %s', agg.aggserialfn::regproc);
        END IF;
        IF agg.aggdeserialfn <> 0 THEN
            opts := opts || format(', DESERIALFUNC = %s', agg.aggdeserialfn::regproc);
        END IF;
        IF agg.aggmtransfn <> 0 THEN
            opts := opts || format(', MSFUNC = %s, MINVFUNC = %s, MSTYPE = %s',
                                   agg.aggmtransfn::regproc, agg.aggminvtransfn::regproc,
                                   format_type(agg.aggmtranstype, NULL));
            IF agg.aggmtransspace <> 0 THEN
                opts := opts || format(', MSSPACE = %s', agg.aggmtransspace);
            END IF;
            IF agg.aggminitval IS NOT NULL THEN
                opts := opts || format(', MINITCOND = %L', agg.aggminitval);
            END IF;
            IF agg.aggmfinalfn <> 0 THEN
                opts := opts || format(', MFINALFUNC = %s', agg.aggmfinalfn::regproc)
                    || CASE WHEN agg.aggmfinalextra THEN ', MFINALFUNC_EXTRA' ELSE '' END
                    || ', MFINALFUNC_MODIFY = ' || CASE agg.aggmfinalmodify
                           WHEN 'r' THEN 'READ_ONLY' WHEN 's' THEN 'SHAREABLE' ELSE 'READ_WRITE' END;
            END IF;
        END IF;
        opts := opts || ', PARALLEL = ' || CASE agg.proparallel
            WHEN 's' THEN 'SAFE' WHEN 'r' THEN 'RESTRICTED' ELSE 'UNSAFE' END;

        EXECUTE format('CREATE OR REPLACE AGGREGATE %s.%I(%s) (%s)', nsp, agg.proname, argsig, opts);
    END LOOP;
END
$fn$;

/*
 * The built-in types that get typed overloads: the common types, and every
 * built-in type with an implicit cast to one of them ("char" to text, cidr to
 * inet, the reg* types to oid), which would otherwise no longer resolve to
 * the polymorphic aggregates but to the cast's target.
 */
CREATE OR REPLACE FUNCTION count_distinct_declare_builtin_types()
    RETURNS void
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    nsp     text;
    t       regtype;
BEGIN
    SELECT quote_ident(n.nspname) INTO nsp
    FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
    WHERE e.extname = 'count_distinct';
    FOREACH t IN ARRAY ARRAY[
        'int2', 'int4', 'int8', 'float4', 'float8', 'numeric', 'money', 'oid',
        'bool', '"char"', 'text', 'varchar', 'bpchar', 'name', 'bytea', 'uuid',
        'date', 'time', 'timestamp', 'timestamptz', 'interval',
        'inet', 'cidr', 'jsonb',
        'regproc', 'regprocedure', 'regoper', 'regoperator', 'regclass', 'regtype',
        'regconfig', 'regdictionary', 'regnamespace', 'regrole', 'regcollation'
    ]::regtype[] LOOP
        EXECUTE format('SELECT %s.count_distinct_declare_type($1)', nsp) USING t;
    END LOOP;
END
$fn$;


/* ------------------------------------------------------------------------
 * distinct_set: a stored, exact set of values of one element type (see the
 * README, "Stored sets", and src/dset.h for the format).
 *
 * CREATE TYPE, CREATE OPERATOR and CREATE OPERATOR CLASS have no OR REPLACE:
 * they run only where the object does not exist yet, so that this script
 * still runs over an existing catalog (the update scripts, sql/update/).
 * ------------------------------------------------------------------------
 */
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_type
                   WHERE typname = 'distinct_set'
                     AND typnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())) THEN
        CREATE TYPE distinct_set;
    END IF;
END
$$;

CREATE OR REPLACE FUNCTION distinct_set_in(cstring)
    RETURNS distinct_set
    AS 'MODULE_PATHNAME', 'distinct_set_in'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION distinct_set_out(distinct_set)
    RETURNS cstring
    AS 'MODULE_PATHNAME', 'distinct_set_out'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION distinct_set_recv(internal)
    RETURNS distinct_set
    AS 'MODULE_PATHNAME', 'distinct_set_recv'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION distinct_set_send(distinct_set)
    RETURNS bytea
    AS 'MODULE_PATHNAME', 'distinct_set_send'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;

/*
 * STORAGE = extended, by measurement (PostgreSQL 15, pg_column_size):
 * random keys do not compress (pglz gives up after the first kilobyte, so
 * trying costs little), but regular ones do: 1M int8 clustered in a
 * repeating pattern 1.31 MB -> 43 kB, 100k 'user_NNNNNNN' texts 311 kB ->
 * 7 kB.  cardinality() still reads a prefix only (a slice of a compressed
 * value decompresses only its beginning): 150 sets of 1M values in 4 ms
 * either way.
 */
DO $$
BEGIN
    IF NOT (SELECT typisdefined FROM pg_type
            WHERE typname = 'distinct_set'
              AND typnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())) THEN
        CREATE TYPE distinct_set (
            INPUT = distinct_set_in,
            OUTPUT = distinct_set_out,
            RECEIVE = distinct_set_recv,
            SEND = distinct_set_send,
            INTERNALLENGTH = VARIABLE,
            ALIGNMENT = int4,
            STORAGE = extended
        );
    END IF;
END
$$;

/* build */
CREATE OR REPLACE FUNCTION distinct_set_agg_final(internal)
    RETURNS distinct_set
    AS 'MODULE_PATHNAME', 'distinct_set_agg_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION distinct_set_agg_moving_final(internal)
    RETURNS distinct_set
    AS 'MODULE_PATHNAME', 'distinct_set_agg_moving_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

/*
 * The states and support functions of count_distinct (SSPACE, MSSPACE and
 * the moving-aggregate mode of window frames: see there).
 */
CREATE OR REPLACE AGGREGATE distinct_set_agg(anyelement) (
    SFUNC = count_distinct_append,
    STYPE = internal,
    SSPACE = 88,
    FINALFUNC = distinct_set_agg_final,
    FINALFUNC_MODIFY = SHAREABLE,
    COMBINEFUNC = count_distinct_combine,
    SERIALFUNC = count_distinct_serial,
    DESERIALFUNC = count_distinct_deserial,
    MSFUNC = count_distinct_moving_append,
    MINVFUNC = count_distinct_moving_remove,
    MSTYPE = internal,
    MSSPACE = 128,
    MFINALFUNC = distinct_set_agg_moving_final,
    MFINALFUNC_MODIFY = READ_ONLY,
    PARALLEL = SAFE
);

CREATE OR REPLACE FUNCTION distinct_set(anyarray)
    RETURNS distinct_set
    AS 'MODULE_PATHNAME', 'distinct_set_from_array'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

/* the binary form (distinct_set_send's bytes) back, validated as binary input */
CREATE OR REPLACE FUNCTION distinct_set_from_bytes(bytea)
    RETURNS distinct_set
    AS 'MODULE_PATHNAME', 'distinct_set_from_bytes'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;

/*
 * read; the support function plans cardinality(distinct_set_union_agg(s))
 * and cardinality(distinct_set_intersect_agg(s)) as the counting aggregates
 * below, which skip encoding the set
 */
CREATE OR REPLACE FUNCTION distinct_set_cardinality_support(internal)
    RETURNS internal
    AS 'MODULE_PATHNAME', 'distinct_set_cardinality_support'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION cardinality(distinct_set)
    RETURNS bigint
    AS 'MODULE_PATHNAME', 'distinct_set_cardinality'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
    SUPPORT distinct_set_cardinality_support;

CREATE OR REPLACE FUNCTION distinct_set_to_array(distinct_set, anyelement)
    RETURNS anyarray
    AS 'MODULE_PATHNAME', 'distinct_set_to_array'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION distinct_set_values(distinct_set, anyelement)
    RETURNS SETOF anyelement
    AS 'MODULE_PATHNAME', 'distinct_set_values'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION distinct_set_contains(distinct_set, anyelement)
    RETURNS boolean
    AS 'MODULE_PATHNAME', 'distinct_set_contains'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

/* combine */
/* cardinality(a & b), cardinality(a | b), cardinality(a - b) are planned as these */
CREATE OR REPLACE FUNCTION distinct_set_intersect_cardinality(distinct_set, distinct_set)
    RETURNS bigint
    AS 'MODULE_PATHNAME', 'distinct_set_intersect_cardinality'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION distinct_set_union_cardinality(distinct_set, distinct_set)
    RETURNS bigint
    AS 'MODULE_PATHNAME', 'distinct_set_union_cardinality'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION distinct_set_except_cardinality(distinct_set, distinct_set)
    RETURNS bigint
    AS 'MODULE_PATHNAME', 'distinct_set_except_cardinality'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION distinct_set_union(distinct_set, distinct_set)
    RETURNS distinct_set
    AS 'MODULE_PATHNAME', 'distinct_set_union'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION distinct_set_intersect(distinct_set, distinct_set)
    RETURNS distinct_set
    AS 'MODULE_PATHNAME', 'distinct_set_intersect'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION distinct_set_except(distinct_set, distinct_set)
    RETURNS distinct_set
    AS 'MODULE_PATHNAME', 'distinct_set_except'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION distinct_set_contains_set(distinct_set, distinct_set)
    RETURNS boolean
    AS 'MODULE_PATHNAME', 'distinct_set_contains_set'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION distinct_set_contained(distinct_set, distinct_set)
    RETURNS boolean
    AS 'MODULE_PATHNAME', 'distinct_set_contained'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION distinct_set_overlaps(distinct_set, distinct_set)
    RETURNS boolean
    AS 'MODULE_PATHNAME', 'distinct_set_overlaps'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

/* union and intersection aggregates: the state serializes as a set */
CREATE OR REPLACE FUNCTION distinct_set_union_append(internal, distinct_set)
    RETURNS internal
    AS 'MODULE_PATHNAME', 'distinct_set_union_append'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION distinct_set_union_combine(internal, internal)
    RETURNS internal
    AS 'MODULE_PATHNAME', 'distinct_set_union_combine'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION distinct_set_union_final(internal)
    RETURNS distinct_set
    AS 'MODULE_PATHNAME', 'distinct_set_union_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION distinct_set_agg_serial(internal)
    RETURNS bytea
    AS 'MODULE_PATHNAME', 'distinct_set_agg_serial'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION distinct_set_union_count_final(internal)
    RETURNS bigint
    AS 'MODULE_PATHNAME', 'distinct_set_union_count_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION distinct_set_intersect_count_final(internal)
    RETURNS bigint
    AS 'MODULE_PATHNAME', 'distinct_set_intersect_count_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

/* sliding window frames: each key's number of the frame's sets (dset_agg.c) */
CREATE OR REPLACE FUNCTION distinct_set_union_moving_append(internal, distinct_set)
    RETURNS internal
    AS 'MODULE_PATHNAME', 'distinct_set_union_moving_append'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION distinct_set_union_moving_remove(internal, distinct_set)
    RETURNS internal
    AS 'MODULE_PATHNAME', 'distinct_set_union_moving_remove'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION distinct_set_union_moving_final(internal)
    RETURNS distinct_set
    AS 'MODULE_PATHNAME', 'distinct_set_union_moving_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION distinct_set_union_moving_count_final(internal)
    RETURNS bigint
    AS 'MODULE_PATHNAME', 'distinct_set_union_moving_count_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION distinct_set_union_deserial(bytea, internal)
    RETURNS internal
    AS 'MODULE_PATHNAME', 'distinct_set_union_deserial'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION distinct_set_intersect_append(internal, distinct_set)
    RETURNS internal
    AS 'MODULE_PATHNAME', 'distinct_set_intersect_append'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION distinct_set_intersect_combine(internal, internal)
    RETURNS internal
    AS 'MODULE_PATHNAME', 'distinct_set_intersect_combine'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION distinct_set_intersect_final(internal)
    RETURNS distinct_set
    AS 'MODULE_PATHNAME', 'distinct_set_intersect_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION distinct_set_intersect_deserial(bytea, internal)
    RETURNS internal
    AS 'MODULE_PATHNAME', 'distinct_set_intersect_deserial'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

/*
 * SSPACE: the state struct and its first stack of runs; the runs come with
 * the first set.  The final functions merge the union's stack in place and
 * leave the state valid for more rows.
 */
CREATE OR REPLACE AGGREGATE distinct_set_union_agg(distinct_set) (
    SFUNC = distinct_set_union_append,
    STYPE = internal,
    SSPACE = 400,
    FINALFUNC = distinct_set_union_final,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = distinct_set_union_combine,
    SERIALFUNC = distinct_set_agg_serial,
    DESERIALFUNC = distinct_set_union_deserial,
    MSFUNC = distinct_set_union_moving_append,
    MINVFUNC = distinct_set_union_moving_remove,
    MSTYPE = internal,
    MSSPACE = 400,
    MFINALFUNC = distinct_set_union_moving_final,
    MFINALFUNC_MODIFY = READ_ONLY,
    PARALLEL = SAFE
);

CREATE OR REPLACE AGGREGATE distinct_set_intersect_agg(distinct_set) (
    SFUNC = distinct_set_intersect_append,
    STYPE = internal,
    SSPACE = 400,
    FINALFUNC = distinct_set_intersect_final,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = distinct_set_intersect_combine,
    SERIALFUNC = distinct_set_agg_serial,
    DESERIALFUNC = distinct_set_intersect_deserial,
    PARALLEL = SAFE
);

/* the number of values of the union / intersection, without building it */
CREATE OR REPLACE AGGREGATE distinct_set_union_cardinality_agg(distinct_set) (
    SFUNC = distinct_set_union_append,
    STYPE = internal,
    SSPACE = 400,
    FINALFUNC = distinct_set_union_count_final,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = distinct_set_union_combine,
    SERIALFUNC = distinct_set_agg_serial,
    DESERIALFUNC = distinct_set_union_deserial,
    MSFUNC = distinct_set_union_moving_append,
    MINVFUNC = distinct_set_union_moving_remove,
    MSTYPE = internal,
    MSSPACE = 400,
    MFINALFUNC = distinct_set_union_moving_count_final,
    MFINALFUNC_MODIFY = READ_ONLY,
    PARALLEL = SAFE
);

CREATE OR REPLACE AGGREGATE distinct_set_intersect_cardinality_agg(distinct_set) (
    SFUNC = distinct_set_intersect_append,
    STYPE = internal,
    SSPACE = 400,
    FINALFUNC = distinct_set_intersect_count_final,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = distinct_set_intersect_combine,
    SERIALFUNC = distinct_set_agg_serial,
    DESERIALFUNC = distinct_set_intersect_deserial,
    PARALLEL = SAFE
);

/*
 * Comparison and hashing: of the stored bytes, which are canonical (equal
 * sets, equal bytes).  The btree order is a total order consistent with
 * "=", for indexes, sorting and merge joins; it is not an order of the
 * values (sets of one type order by their count first).
 */
CREATE OR REPLACE FUNCTION distinct_set_eq(distinct_set, distinct_set)
    RETURNS boolean AS 'MODULE_PATHNAME', 'distinct_set_eq'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE OR REPLACE FUNCTION distinct_set_ne(distinct_set, distinct_set)
    RETURNS boolean AS 'MODULE_PATHNAME', 'distinct_set_ne'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE OR REPLACE FUNCTION distinct_set_lt(distinct_set, distinct_set)
    RETURNS boolean AS 'MODULE_PATHNAME', 'distinct_set_lt'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE OR REPLACE FUNCTION distinct_set_le(distinct_set, distinct_set)
    RETURNS boolean AS 'MODULE_PATHNAME', 'distinct_set_le'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE OR REPLACE FUNCTION distinct_set_gt(distinct_set, distinct_set)
    RETURNS boolean AS 'MODULE_PATHNAME', 'distinct_set_gt'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE OR REPLACE FUNCTION distinct_set_ge(distinct_set, distinct_set)
    RETURNS boolean AS 'MODULE_PATHNAME', 'distinct_set_ge'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE OR REPLACE FUNCTION distinct_set_cmp(distinct_set, distinct_set)
    RETURNS integer AS 'MODULE_PATHNAME', 'distinct_set_cmp'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE OR REPLACE FUNCTION distinct_set_hash(distinct_set)
    RETURNS integer AS 'MODULE_PATHNAME', 'distinct_set_hash'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE OR REPLACE FUNCTION distinct_set_hash_extended(distinct_set, bigint)
    RETURNS bigint AS 'MODULE_PATHNAME', 'distinct_set_hash_extended'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_operator
                   WHERE oprname = '=' AND oprnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())
                     AND oprleft = (SELECT t.oid FROM pg_type t
                                    WHERE t.typname = 'distinct_set'
                                      AND t.typnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema()))) THEN
        CREATE OPERATOR | (
            LEFTARG = distinct_set, RIGHTARG = distinct_set,
            FUNCTION = distinct_set_union, COMMUTATOR = |);
        CREATE OPERATOR & (
            LEFTARG = distinct_set, RIGHTARG = distinct_set,
            FUNCTION = distinct_set_intersect, COMMUTATOR = &);
        CREATE OPERATOR - (
            LEFTARG = distinct_set, RIGHTARG = distinct_set,
            FUNCTION = distinct_set_except);
        CREATE OPERATOR @> (
            LEFTARG = distinct_set, RIGHTARG = distinct_set,
            FUNCTION = distinct_set_contains_set, COMMUTATOR = <@,
            RESTRICT = contsel, JOIN = contjoinsel);
        CREATE OPERATOR <@ (
            LEFTARG = distinct_set, RIGHTARG = distinct_set,
            FUNCTION = distinct_set_contained, COMMUTATOR = @>,
            RESTRICT = contsel, JOIN = contjoinsel);
        CREATE OPERATOR && (
            LEFTARG = distinct_set, RIGHTARG = distinct_set,
            FUNCTION = distinct_set_overlaps, COMMUTATOR = &&,
            RESTRICT = contsel, JOIN = contjoinsel);
        CREATE OPERATOR = (
            LEFTARG = distinct_set, RIGHTARG = distinct_set,
            FUNCTION = distinct_set_eq, COMMUTATOR = =, NEGATOR = <>,
            RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES);
        CREATE OPERATOR <> (
            LEFTARG = distinct_set, RIGHTARG = distinct_set,
            FUNCTION = distinct_set_ne, COMMUTATOR = <>, NEGATOR = =,
            RESTRICT = neqsel, JOIN = neqjoinsel);
        CREATE OPERATOR < (
            LEFTARG = distinct_set, RIGHTARG = distinct_set,
            FUNCTION = distinct_set_lt, COMMUTATOR = >, NEGATOR = >=,
            RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
        CREATE OPERATOR <= (
            LEFTARG = distinct_set, RIGHTARG = distinct_set,
            FUNCTION = distinct_set_le, COMMUTATOR = >=, NEGATOR = >,
            RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
        CREATE OPERATOR > (
            LEFTARG = distinct_set, RIGHTARG = distinct_set,
            FUNCTION = distinct_set_gt, COMMUTATOR = <, NEGATOR = <=,
            RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
        CREATE OPERATOR >= (
            LEFTARG = distinct_set, RIGHTARG = distinct_set,
            FUNCTION = distinct_set_ge, COMMUTATOR = <=, NEGATOR = <,
            RESTRICT = scalargesel, JOIN = scalargejoinsel);
        CREATE OPERATOR CLASS distinct_set_ops
            DEFAULT FOR TYPE distinct_set USING btree AS
                OPERATOR 1 <,
                OPERATOR 2 <=,
                OPERATOR 3 =,
                OPERATOR 4 >=,
                OPERATOR 5 >,
                FUNCTION 1 distinct_set_cmp(distinct_set, distinct_set);
        CREATE OPERATOR CLASS distinct_set_hash_ops
            DEFAULT FOR TYPE distinct_set USING hash AS
                OPERATOR 1 =,
                FUNCTION 1 distinct_set_hash(distinct_set),
                FUNCTION 2 distinct_set_hash_extended(distinct_set, bigint);
    END IF;
END
$$;

/*
 * Installed with the extension where Citus is: see count_distinct_declare_type
 * for why not everywhere.  Last, so that every polymorphic aggregate above
 * (distinct_set_agg too) gets its typed overloads.
 */
SELECT count_distinct_declare_builtin_types()
WHERE EXISTS (SELECT FROM pg_extension WHERE extname = 'citus');
