/* count_distinct 4.3.0 */

/*
 * The install script.  It runs as a superuser, also when a database owner
 * who is not one installs the extension (it is trusted), so it must not be
 * steerable by objects that such a user could create beforehand (see
 * PostgreSQL's "Security Considerations for Extensions"):
 *
 *  - every object is created with a plain CREATE (no OR REPLACE, no IF NOT
 *    EXISTS, no test whether it exists): an object of the same name and
 *    signature made by someone else makes CREATE EXTENSION fail instead of
 *    being adopted or used;
 *  - every reference to an object of the extension is qualified with the
 *    extension's schema (the script variable extschema, between at signs:
 *    the control file says relocatable = false, so the schema is known when
 *    the script runs), and every built-in type, function and operator that
 *    a temporary or planted object could shadow is qualified with
 *    pg_catalog: during the script the session's temporary schema may be
 *    searched for types and relations before the others;
 *  - that variable appears only in SQL outside quotes and comments, never
 *    in a string, a function body or a comment, where a crafted schema name
 *    could end the quote or the comment; the plpgsql functions find the
 *    extension's schema in pg_extension and set
 *    search_path = pg_catalog, pg_temp.
 *
 * The update scripts are built from sql/update/ (each step creates what its
 * version adds, the same way): an object added here is also created, with
 * the same plain CREATE, in the newest step there; an object changed here
 * is replaced or altered there (it is a member of the extension then).
 */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION count_distinct" to load this file. \quit

/* transition functions: add one value / all elements of one array */
CREATE FUNCTION @extschema@.count_distinct_append(pg_catalog.internal, pg_catalog.anyelement)
    RETURNS pg_catalog.internal
    AS 'MODULE_PATHNAME', 'count_distinct_append'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.count_distinct_elements_append(pg_catalog.internal, pg_catalog.anyarray)
    RETURNS pg_catalog.internal
    AS 'MODULE_PATHNAME', 'count_distinct_elements_append'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

/* combine, serialize, deserialize: shared by all four aggregates */
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

/* final functions */
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

CREATE FUNCTION @extschema@.array_agg_distinct_array_final(pg_catalog.internal, pg_catalog.anyarray)
    RETURNS pg_catalog.anyarray
    AS 'MODULE_PATHNAME', 'array_agg_distinct_array_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

/*
 * moving-aggregate mode (window frames): add / remove one row, and final
 * functions that only read the state
 */
CREATE FUNCTION @extschema@.count_distinct_moving_append(pg_catalog.internal, pg_catalog.anyelement)
    RETURNS pg_catalog.internal
    AS 'MODULE_PATHNAME', 'count_distinct_moving_append'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.count_distinct_moving_remove(pg_catalog.internal, pg_catalog.anyelement)
    RETURNS pg_catalog.internal
    AS 'MODULE_PATHNAME', 'count_distinct_moving_remove'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.count_distinct_elements_moving_append(pg_catalog.internal, pg_catalog.anyarray)
    RETURNS pg_catalog.internal
    AS 'MODULE_PATHNAME', 'count_distinct_elements_moving_append'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.count_distinct_elements_moving_remove(pg_catalog.internal, pg_catalog.anyarray)
    RETURNS pg_catalog.internal
    AS 'MODULE_PATHNAME', 'count_distinct_elements_moving_remove'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.count_distinct_moving_final(pg_catalog.internal)
    RETURNS bigint
    AS 'MODULE_PATHNAME', 'count_distinct_moving_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.array_agg_distinct_type_moving_final(pg_catalog.internal, pg_catalog.anynonarray)
    RETURNS pg_catalog.anyarray
    AS 'MODULE_PATHNAME', 'array_agg_distinct_moving_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.array_agg_distinct_elements_moving_final(pg_catalog.internal, pg_catalog.anyarray)
    RETURNS pg_catalog.anyarray
    AS 'MODULE_PATHNAME', 'array_agg_distinct_moving_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.array_agg_distinct_array_moving_final(pg_catalog.internal, pg_catalog.anyarray)
    RETURNS pg_catalog.anyarray
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
CREATE AGGREGATE @extschema@.count_distinct(pg_catalog.anyelement) (
    SFUNC = @extschema@.count_distinct_append,
    STYPE = pg_catalog.internal,
    SSPACE = 88,
    FINALFUNC = @extschema@.count_distinct_final,
    FINALFUNC_MODIFY = SHAREABLE,
    COMBINEFUNC = @extschema@.count_distinct_combine,
    SERIALFUNC = @extschema@.count_distinct_serial,
    DESERIALFUNC = @extschema@.count_distinct_deserial,
    MSFUNC = @extschema@.count_distinct_moving_append,
    MINVFUNC = @extschema@.count_distinct_moving_remove,
    MSTYPE = pg_catalog.internal,
    MSSPACE = 128,
    MFINALFUNC = @extschema@.count_distinct_moving_final,
    MFINALFUNC_MODIFY = READ_ONLY,
    PARALLEL = SAFE
);

/*
 * count_distinct of an untyped literal (count_distinct('a'),
 * count_distinct(NULL)): counted as text under the default collation, as
 * count(DISTINCT 'a') is.  Only an untyped literal is of type unknown, and
 * no typed argument can be coerced to unknown, so this overload changes the
 * resolution of no typed call (an overload over text would: citext and
 * domains over text would resolve to it).  The support functions are the
 * polymorphic ones' C functions, declared over unknown.  array_agg_distinct
 * has none, as array_agg('a') has none (not unique).
 */
CREATE FUNCTION @extschema@.count_distinct_append(pg_catalog.internal, pg_catalog.unknown)
    RETURNS pg_catalog.internal
    AS 'MODULE_PATHNAME', 'count_distinct_append'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.count_distinct_moving_append(pg_catalog.internal, pg_catalog.unknown)
    RETURNS pg_catalog.internal
    AS 'MODULE_PATHNAME', 'count_distinct_moving_append'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.count_distinct_moving_remove(pg_catalog.internal, pg_catalog.unknown)
    RETURNS pg_catalog.internal
    AS 'MODULE_PATHNAME', 'count_distinct_moving_remove'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE @extschema@.count_distinct(pg_catalog.unknown) (
    SFUNC = @extschema@.count_distinct_append,
    STYPE = pg_catalog.internal,
    SSPACE = 88,
    FINALFUNC = @extschema@.count_distinct_final,
    FINALFUNC_MODIFY = SHAREABLE,
    COMBINEFUNC = @extschema@.count_distinct_combine,
    SERIALFUNC = @extschema@.count_distinct_serial,
    DESERIALFUNC = @extschema@.count_distinct_deserial,
    MSFUNC = @extschema@.count_distinct_moving_append,
    MINVFUNC = @extschema@.count_distinct_moving_remove,
    MSTYPE = pg_catalog.internal,
    MSSPACE = 128,
    MFINALFUNC = @extschema@.count_distinct_moving_final,
    MFINALFUNC_MODIFY = READ_ONLY,
    PARALLEL = SAFE
);

/*
 * count_distinct(a, b [, c [, d]]): COUNT(DISTINCT (a, b, ...)), the rows
 * of the arguments counted as count_distinct(ROW(a, b, ...)) counts them,
 * with the states of that record (docs/records.md).  Fixed arities over
 * "any" (a VARIADIC "any" overload would make one-argument calls
 * ambiguous beside anyelement and unknown); the support functions are one
 * C function each, declared for each arity.
 */
CREATE FUNCTION @extschema@.count_distinct_args_append(pg_catalog.internal, "any", "any")
    RETURNS pg_catalog.internal
    AS 'MODULE_PATHNAME', 'count_distinct_args_append'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.count_distinct_args_moving_append(pg_catalog.internal, "any", "any")
    RETURNS pg_catalog.internal
    AS 'MODULE_PATHNAME', 'count_distinct_args_moving_append'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.count_distinct_args_moving_remove(pg_catalog.internal, "any", "any")
    RETURNS pg_catalog.internal
    AS 'MODULE_PATHNAME', 'count_distinct_args_moving_remove'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE @extschema@.count_distinct("any", "any") (
    SFUNC = @extschema@.count_distinct_args_append,
    STYPE = pg_catalog.internal,
    SSPACE = 88,
    FINALFUNC = @extschema@.count_distinct_final,
    FINALFUNC_MODIFY = SHAREABLE,
    COMBINEFUNC = @extschema@.count_distinct_combine,
    SERIALFUNC = @extschema@.count_distinct_serial,
    DESERIALFUNC = @extschema@.count_distinct_deserial,
    MSFUNC = @extschema@.count_distinct_args_moving_append,
    MINVFUNC = @extschema@.count_distinct_args_moving_remove,
    MSTYPE = pg_catalog.internal,
    MSSPACE = 128,
    MFINALFUNC = @extschema@.count_distinct_moving_final,
    MFINALFUNC_MODIFY = READ_ONLY,
    PARALLEL = SAFE
);

CREATE FUNCTION @extschema@.count_distinct_args_append(pg_catalog.internal, "any", "any", "any")
    RETURNS pg_catalog.internal
    AS 'MODULE_PATHNAME', 'count_distinct_args_append'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.count_distinct_args_moving_append(pg_catalog.internal, "any", "any", "any")
    RETURNS pg_catalog.internal
    AS 'MODULE_PATHNAME', 'count_distinct_args_moving_append'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.count_distinct_args_moving_remove(pg_catalog.internal, "any", "any", "any")
    RETURNS pg_catalog.internal
    AS 'MODULE_PATHNAME', 'count_distinct_args_moving_remove'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE @extschema@.count_distinct("any", "any", "any") (
    SFUNC = @extschema@.count_distinct_args_append,
    STYPE = pg_catalog.internal,
    SSPACE = 88,
    FINALFUNC = @extschema@.count_distinct_final,
    FINALFUNC_MODIFY = SHAREABLE,
    COMBINEFUNC = @extschema@.count_distinct_combine,
    SERIALFUNC = @extschema@.count_distinct_serial,
    DESERIALFUNC = @extschema@.count_distinct_deserial,
    MSFUNC = @extschema@.count_distinct_args_moving_append,
    MINVFUNC = @extschema@.count_distinct_args_moving_remove,
    MSTYPE = pg_catalog.internal,
    MSSPACE = 128,
    MFINALFUNC = @extschema@.count_distinct_moving_final,
    MFINALFUNC_MODIFY = READ_ONLY,
    PARALLEL = SAFE
);

CREATE FUNCTION @extschema@.count_distinct_args_append(pg_catalog.internal, "any", "any", "any", "any")
    RETURNS pg_catalog.internal
    AS 'MODULE_PATHNAME', 'count_distinct_args_append'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.count_distinct_args_moving_append(pg_catalog.internal, "any", "any", "any", "any")
    RETURNS pg_catalog.internal
    AS 'MODULE_PATHNAME', 'count_distinct_args_moving_append'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.count_distinct_args_moving_remove(pg_catalog.internal, "any", "any", "any", "any")
    RETURNS pg_catalog.internal
    AS 'MODULE_PATHNAME', 'count_distinct_args_moving_remove'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE @extschema@.count_distinct("any", "any", "any", "any") (
    SFUNC = @extschema@.count_distinct_args_append,
    STYPE = pg_catalog.internal,
    SSPACE = 88,
    FINALFUNC = @extschema@.count_distinct_final,
    FINALFUNC_MODIFY = SHAREABLE,
    COMBINEFUNC = @extschema@.count_distinct_combine,
    SERIALFUNC = @extschema@.count_distinct_serial,
    DESERIALFUNC = @extschema@.count_distinct_deserial,
    MSFUNC = @extschema@.count_distinct_args_moving_append,
    MINVFUNC = @extschema@.count_distinct_args_moving_remove,
    MSTYPE = pg_catalog.internal,
    MSSPACE = 128,
    MFINALFUNC = @extschema@.count_distinct_moving_final,
    MFINALFUNC_MODIFY = READ_ONLY,
    PARALLEL = SAFE
);

CREATE AGGREGATE @extschema@.count_distinct_elements(pg_catalog.anyarray) (
    SFUNC = @extschema@.count_distinct_elements_append,
    STYPE = pg_catalog.internal,
    SSPACE = 88,
    FINALFUNC = @extschema@.count_distinct_final,
    FINALFUNC_MODIFY = SHAREABLE,
    COMBINEFUNC = @extschema@.count_distinct_combine,
    SERIALFUNC = @extschema@.count_distinct_serial,
    DESERIALFUNC = @extschema@.count_distinct_deserial,
    MSFUNC = @extschema@.count_distinct_elements_moving_append,
    MINVFUNC = @extschema@.count_distinct_elements_moving_remove,
    MSTYPE = pg_catalog.internal,
    MSSPACE = 128,
    MFINALFUNC = @extschema@.count_distinct_moving_final,
    MFINALFUNC_MODIFY = READ_ONLY,
    PARALLEL = SAFE
);

CREATE AGGREGATE @extschema@.array_agg_distinct(pg_catalog.anynonarray) (
    SFUNC = @extschema@.count_distinct_append,
    STYPE = pg_catalog.internal,
    SSPACE = 88,
    FINALFUNC = @extschema@.array_agg_distinct_type_final,
    FINALFUNC_EXTRA,
    FINALFUNC_MODIFY = SHAREABLE,
    COMBINEFUNC = @extschema@.count_distinct_combine,
    SERIALFUNC = @extschema@.count_distinct_serial,
    DESERIALFUNC = @extschema@.count_distinct_deserial,
    MSFUNC = @extschema@.count_distinct_moving_append,
    MINVFUNC = @extschema@.count_distinct_moving_remove,
    MSTYPE = pg_catalog.internal,
    MSSPACE = 128,
    MFINALFUNC = @extschema@.array_agg_distinct_type_moving_final,
    MFINALFUNC_EXTRA,
    MFINALFUNC_MODIFY = READ_ONLY,
    PARALLEL = SAFE
);

CREATE AGGREGATE @extschema@.array_agg_distinct_elements(pg_catalog.anyarray) (
    SFUNC = @extschema@.count_distinct_elements_append,
    STYPE = pg_catalog.internal,
    SSPACE = 88,
    FINALFUNC = @extschema@.array_agg_distinct_elements_final,
    FINALFUNC_EXTRA,
    FINALFUNC_MODIFY = SHAREABLE,
    COMBINEFUNC = @extschema@.count_distinct_combine,
    SERIALFUNC = @extschema@.count_distinct_serial,
    DESERIALFUNC = @extschema@.count_distinct_deserial,
    MSFUNC = @extschema@.count_distinct_elements_moving_append,
    MINVFUNC = @extschema@.count_distinct_elements_moving_remove,
    MSTYPE = pg_catalog.internal,
    MSSPACE = 128,
    MFINALFUNC = @extschema@.array_agg_distinct_elements_moving_final,
    MFINALFUNC_EXTRA,
    MFINALFUNC_MODIFY = READ_ONLY,
    PARALLEL = SAFE
);

/*
 * arrays of arrays: like native array_agg(anyarray), one more dimension
 * (arrays are variable-size keys: SSPACE as above)
 */
CREATE AGGREGATE @extschema@.array_agg_distinct(pg_catalog.anyarray) (
    SFUNC = @extschema@.count_distinct_append,
    STYPE = pg_catalog.internal,
    SSPACE = 176,
    FINALFUNC = @extschema@.array_agg_distinct_array_final,
    FINALFUNC_EXTRA,
    FINALFUNC_MODIFY = SHAREABLE,
    COMBINEFUNC = @extschema@.count_distinct_combine,
    SERIALFUNC = @extschema@.count_distinct_serial,
    DESERIALFUNC = @extschema@.count_distinct_deserial,
    MSFUNC = @extschema@.count_distinct_moving_append,
    MINVFUNC = @extschema@.count_distinct_moving_remove,
    MSTYPE = pg_catalog.internal,
    MSSPACE = 128,
    MFINALFUNC = @extschema@.array_agg_distinct_array_moving_final,
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
 * brings them up to date.
 *
 * It creates C functions, so only superusers may call it (EXECUTE is
 * revoked from PUBLIC, and it checks).  What it runs cannot be steered by
 * other users: the DDL names every type and function by schema and name,
 * quoted (%I), never by text that is resolved again; an existing function
 * or aggregate of a signature it creates is replaced only if it is a member
 * of the extension or owned by a superuser (nobody else can create C
 * functions or aggregates with an internal state), otherwise it fails; and
 * each aggregate it creates is checked to use exactly the support functions
 * it meant.
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
CREATE FUNCTION @extschema@.count_distinct_declare_type(type pg_catalog.regtype)
    RETURNS pg_catalog.void
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    ext     oid;        -- the extension
    extnsp  oid;        -- its schema
    extname_ name;      -- its name
    t       pg_type;
    is_arr  boolean;    -- T is an array type (no anynonarray, no T[])
    agg     record;
    fn      record;
    argtype oid;        -- the typed aggregate's argument type: T or T[]
    found_  boolean;
    trusted boolean;
    twin    oid;
    tmpl    oid[];      -- template support functions ...
    used    oid[];      -- ... and the typed twin each must be replaced by
    opts    text;
    wrong   text;
    poly    CONSTANT oid[] := ARRAY['pg_catalog.anyelement', 'pg_catalog.anynonarray',
                                    'pg_catalog.anyarray']::regtype[];
BEGIN
    IF NOT coalesce((SELECT r.rolsuper FROM pg_roles r WHERE r.rolname = current_user), false) THEN
        RAISE EXCEPTION 'permission denied to declare typed count_distinct aggregates'
            USING ERRCODE = 'insufficient_privilege',
                  DETAIL = 'Typed aggregates need C functions, which only superusers can create.';
    END IF;

    SELECT e.oid, e.extnamespace, n.nspname INTO ext, extnsp, extname_
    FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
    WHERE e.extname = 'count_distinct';
    IF ext IS NULL THEN
        RAISE EXCEPTION 'extension "count_distinct" is not installed'
            USING ERRCODE = 'undefined_object';
    END IF;

    SELECT * INTO t FROM pg_type WHERE oid = type;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'type with OID % does not exist', type::oid
            USING ERRCODE = 'undefined_object';
    END IF;
    IF t.typtype = 'p' THEN
        RAISE EXCEPTION 'cannot declare typed count_distinct aggregates for pseudo-type %', type
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'The polymorphic aggregates accept every type already.';
    END IF;
    is_arr := t.typelem <> 0 AND t.typlen = -1;

    /*
     * Every polymorphic one-argument aggregate of the extension (a member,
     * in its schema) is a template.  Names in the DDL below come from OIDs:
     * types and functions as schema.name, both quoted (%I).
     */
    FOR agg IN
        SELECT p.proname, p.proargtypes[0] AS polyarg, p.proparallel, a.*
        FROM pg_depend d
        JOIN pg_proc p ON p.oid = d.objid
        JOIN pg_aggregate a ON a.aggfnoid = p.oid
        WHERE d.classid = 'pg_catalog.pg_proc'::regclass
          AND d.refclassid = 'pg_catalog.pg_extension'::regclass
          AND d.refobjid = ext AND d.deptype = 'e'
          AND p.pronamespace = extnsp
          AND p.pronargs = 1 AND p.proargtypes[0] = ANY (poly)
        ORDER BY p.proname
    LOOP
        IF agg.aggkind <> 'n' OR agg.aggsortop <> 0 THEN
            RAISE EXCEPTION 'aggregate % has options that typed overloads cannot copy',
                agg.aggfnoid::regprocedure;
        END IF;
        argtype := CASE agg.polyarg
            WHEN 'pg_catalog.anyarray'::regtype THEN CASE WHEN NOT is_arr THEN nullif(t.typarray, 0) END
            WHEN 'pg_catalog.anynonarray'::regtype THEN CASE WHEN NOT is_arr THEN t.oid END
            ELSE t.oid END;
        CONTINUE WHEN argtype IS NULL;

        /*
         * typed twins of its polymorphic support functions (C functions):
         * the same name, schema and C symbol, T and T[] in place of the
         * polymorphic types
         */
        tmpl := '{}';
        used := '{}';
        FOR fn IN
            SELECT p.oid, p.pronamespace, pn.nspname, p.proname, p.prolang, p.probin, p.prosrc,
                   p.provolatile, p.proisstrict, p.proparallel, p.procost, sig.args, sig.argtext,
                   (SELECT format('%I.%I', n.nspname, y.typname)
                    FROM pg_type y JOIN pg_namespace n ON n.oid = y.typnamespace
                    WHERE y.oid = sig.ret) AS rettext
            FROM pg_proc p
            JOIN pg_namespace pn ON pn.oid = p.pronamespace
            JOIN pg_language l ON l.oid = p.prolang AND l.lanname = 'c'
            CROSS JOIN LATERAL (
                SELECT array_agg(m.typ ORDER BY u.i) AS args,
                       string_agg(format('%I.%I', n.nspname, y.typname), ', ' ORDER BY u.i) AS argtext,
                       count(*) FILTER (WHERE m.typ IS NULL) AS unmapped,
                       (SELECT CASE p.prorettype
                                   WHEN 'pg_catalog.anyarray'::regtype THEN CASE WHEN NOT is_arr THEN nullif(t.typarray, 0) END
                                   WHEN 'pg_catalog.anyelement'::regtype THEN t.oid
                                   WHEN 'pg_catalog.anynonarray'::regtype THEN CASE WHEN NOT is_arr THEN t.oid END
                                   ELSE p.prorettype END) AS ret
                FROM unnest(p.proargtypes::oid[]) WITH ORDINALITY u(a, i)
                CROSS JOIN LATERAL (SELECT CASE u.a
                                        WHEN 'pg_catalog.anyarray'::regtype THEN CASE WHEN NOT is_arr THEN nullif(t.typarray, 0) END
                                        WHEN 'pg_catalog.anyelement'::regtype THEN t.oid
                                        WHEN 'pg_catalog.anynonarray'::regtype THEN CASE WHEN NOT is_arr THEN t.oid END
                                        ELSE u.a END AS typ) m
                LEFT JOIN pg_type y ON y.oid = m.typ
                LEFT JOIN pg_namespace n ON n.oid = y.typnamespace
            ) sig
            WHERE p.oid IN (agg.aggtransfn, agg.aggfinalfn, agg.aggcombinefn, agg.aggserialfn,
                            agg.aggdeserialfn, agg.aggmtransfn, agg.aggminvtransfn, agg.aggmfinalfn)
              AND (p.prorettype = ANY (poly) OR p.proargtypes::oid[] && poly)
              AND sig.unmapped = 0 AND sig.ret IS NOT NULL
            ORDER BY p.oid
        LOOP
            /*
             * An existing function of the twin's signature is replaced only
             * if it is one: a member of the extension, or a superuser's C
             * function of the same symbol.
             */
            SELECT true, (EXISTS (SELECT FROM pg_depend d
                                  WHERE d.classid = 'pg_catalog.pg_proc'::regclass AND d.objid = p.oid
                                    AND d.refclassid = 'pg_catalog.pg_extension'::regclass
                                    AND d.refobjid = ext AND d.deptype = 'e')
                          OR coalesce((SELECT r.rolsuper FROM pg_roles r WHERE r.oid = p.proowner), false))
                         AND p.prolang = fn.prolang AND p.prosrc = fn.prosrc AND p.probin = fn.probin
            INTO found_, trusted
            FROM pg_proc p
            WHERE p.pronamespace = fn.pronamespace AND p.proname = fn.proname
              AND p.proargtypes = array_to_string(fn.args, ' ')::oidvector;
            IF found_ AND NOT trusted THEN
                RAISE EXCEPTION 'function %.%(%) already exists', quote_ident(fn.nspname),
                    quote_ident(fn.proname), fn.argtext
                    USING ERRCODE = 'duplicate_function',
                          DETAIL = 'It is not a typed support function of count_distinct, so it is left as it is.';
            END IF;
            EXECUTE format('CREATE %s FUNCTION %I.%I(%s) RETURNS %s AS %L, %L '
                           'LANGUAGE c %s %s PARALLEL %s COST %s',
                           CASE WHEN found_ THEN 'OR REPLACE' ELSE '' END,
                           fn.nspname, fn.proname, fn.argtext, fn.rettext,
                           fn.probin, fn.prosrc,
                           CASE fn.provolatile WHEN 'i' THEN 'IMMUTABLE' WHEN 's' THEN 'STABLE' ELSE 'VOLATILE' END,
                           CASE WHEN fn.proisstrict THEN 'STRICT' ELSE 'CALLED ON NULL INPUT' END,
                           CASE fn.proparallel WHEN 's' THEN 'SAFE' WHEN 'r' THEN 'RESTRICTED' ELSE 'UNSAFE' END,
                           fn.procost);
            found_ := false;
            SELECT p.oid INTO twin FROM pg_proc p
            WHERE p.pronamespace = fn.pronamespace AND p.proname = fn.proname
              AND p.proargtypes = array_to_string(fn.args, ' ')::oidvector;
            tmpl := tmpl || fn.oid;
            used := used || twin;
        END LOOP;

        /*
         * The template's options.  Support functions by schema and name:
         * CREATE AGGREGATE resolves each with the typed argument types, to
         * the twin where there is one (checked below).
         */
        opts := format('SFUNC = %I.%I, STYPE = %I.%I',
                       (SELECT n.nspname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE p.oid = agg.aggtransfn),
                       (SELECT proname FROM pg_proc WHERE oid = agg.aggtransfn),
                       (SELECT n.nspname FROM pg_type y JOIN pg_namespace n ON n.oid = y.typnamespace WHERE y.oid = agg.aggtranstype),
                       (SELECT typname FROM pg_type WHERE oid = agg.aggtranstype));
        IF agg.aggtransspace <> 0 THEN
            opts := opts || format(', SSPACE = %s', agg.aggtransspace);
        END IF;
        IF agg.agginitval IS NOT NULL THEN
            opts := opts || format(', INITCOND = %L', agg.agginitval);
        END IF;
        IF agg.aggfinalfn <> 0 THEN
            opts := opts || format(', FINALFUNC = %I.%I',
                                   (SELECT n.nspname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE p.oid = agg.aggfinalfn),
                                   (SELECT proname FROM pg_proc WHERE oid = agg.aggfinalfn))
                || CASE WHEN agg.aggfinalextra THEN ', FINALFUNC_EXTRA' ELSE '' END
                || ', FINALFUNC_MODIFY = ' || CASE agg.aggfinalmodify
                       WHEN 'r' THEN 'READ_ONLY' WHEN 's' THEN 'SHAREABLE' ELSE 'READ_WRITE' END;
        END IF;
        IF agg.aggcombinefn <> 0 THEN
            opts := opts || format(', COMBINEFUNC = %I.%I',
                                   (SELECT n.nspname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE p.oid = agg.aggcombinefn),
                                   (SELECT proname FROM pg_proc WHERE oid = agg.aggcombinefn));
        END IF;
        IF agg.aggserialfn <> 0 THEN
            opts := opts || format(', SERIALFUNC = %I.%I',
                                   (SELECT n.nspname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE p.oid = agg.aggserialfn),
                                   (SELECT proname FROM pg_proc WHERE oid = agg.aggserialfn));
        END IF;
        IF agg.aggdeserialfn <> 0 THEN
            opts := opts || format(', DESERIALFUNC = %I.%I',
                                   (SELECT n.nspname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE p.oid = agg.aggdeserialfn),
                                   (SELECT proname FROM pg_proc WHERE oid = agg.aggdeserialfn));
        END IF;
        IF agg.aggmtransfn <> 0 THEN
            opts := opts || format(', MSFUNC = %I.%I, MINVFUNC = %I.%I, MSTYPE = %I.%I',
                                   (SELECT n.nspname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE p.oid = agg.aggmtransfn),
                                   (SELECT proname FROM pg_proc WHERE oid = agg.aggmtransfn),
                                   (SELECT n.nspname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE p.oid = agg.aggminvtransfn),
                                   (SELECT proname FROM pg_proc WHERE oid = agg.aggminvtransfn),
                                   (SELECT n.nspname FROM pg_type y JOIN pg_namespace n ON n.oid = y.typnamespace WHERE y.oid = agg.aggmtranstype),
                                   (SELECT typname FROM pg_type WHERE oid = agg.aggmtranstype));
            IF agg.aggmtransspace <> 0 THEN
                opts := opts || format(', MSSPACE = %s', agg.aggmtransspace);
            END IF;
            IF agg.aggminitval IS NOT NULL THEN
                opts := opts || format(', MINITCOND = %L', agg.aggminitval);
            END IF;
            IF agg.aggmfinalfn <> 0 THEN
                opts := opts || format(', MFINALFUNC = %I.%I',
                                       (SELECT n.nspname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE p.oid = agg.aggmfinalfn),
                                       (SELECT proname FROM pg_proc WHERE oid = agg.aggmfinalfn))
                    || CASE WHEN agg.aggmfinalextra THEN ', MFINALFUNC_EXTRA' ELSE '' END
                    || ', MFINALFUNC_MODIFY = ' || CASE agg.aggmfinalmodify
                           WHEN 'r' THEN 'READ_ONLY' WHEN 's' THEN 'SHAREABLE' ELSE 'READ_WRITE' END;
            END IF;
        END IF;
        opts := opts || ', PARALLEL = ' || CASE agg.proparallel
            WHEN 's' THEN 'SAFE' WHEN 'r' THEN 'RESTRICTED' ELSE 'UNSAFE' END;

        /* the same rule as for the twins: replace only a member or a superuser's aggregate */
        found_ := false;
        SELECT true, p.prokind = 'a'
                     AND (EXISTS (SELECT FROM pg_depend d
                                  WHERE d.classid = 'pg_catalog.pg_proc'::regclass AND d.objid = p.oid
                                    AND d.refclassid = 'pg_catalog.pg_extension'::regclass
                                    AND d.refobjid = ext AND d.deptype = 'e')
                          OR coalesce((SELECT r.rolsuper FROM pg_roles r WHERE r.oid = p.proowner), false))
        INTO found_, trusted
        FROM pg_proc p
        WHERE p.pronamespace = extnsp AND p.proname = agg.proname
          AND p.proargtypes = argtype::text::oidvector;
        IF found_ AND NOT trusted THEN
            RAISE EXCEPTION 'function %.%(%) already exists', quote_ident(extname_),
                quote_ident(agg.proname), format_type(argtype, NULL)
                USING ERRCODE = 'duplicate_function',
                      DETAIL = 'It is not a typed aggregate of count_distinct, so it is left as it is.';
        END IF;
        EXECUTE format('CREATE %s AGGREGATE %I.%I(%I.%I) (%s)',
                       CASE WHEN found_ THEN 'OR REPLACE' ELSE '' END,
                       extname_, agg.proname,
                       (SELECT n.nspname FROM pg_type y JOIN pg_namespace n ON n.oid = y.typnamespace WHERE y.oid = argtype),
                       (SELECT typname FROM pg_type WHERE oid = argtype), opts);

        /*
         * It uses the template's support functions or exactly their twins
         * (a template whose argument is T[] passes T[] to support functions
         * declared with anyelement, which then resolve to the template's
         * own function, not to the twin made for T).
         */
        SELECT string_agg(format('%s is %s, not %s', s.slot, s.got::regprocedure, s.want::regprocedure), '; ')
        INTO wrong
        FROM pg_aggregate a
        JOIN pg_proc p ON p.oid = a.aggfnoid
        CROSS JOIN LATERAL (VALUES
            ('SFUNC', agg.aggtransfn::oid, a.aggtransfn::oid),
            ('FINALFUNC', agg.aggfinalfn::oid, a.aggfinalfn::oid),
            ('COMBINEFUNC', agg.aggcombinefn::oid, a.aggcombinefn::oid),
            ('SERIALFUNC', agg.aggserialfn::oid, a.aggserialfn::oid),
            ('DESERIALFUNC', agg.aggdeserialfn::oid, a.aggdeserialfn::oid),
            ('MSFUNC', agg.aggmtransfn::oid, a.aggmtransfn::oid),
            ('MINVFUNC', agg.aggminvtransfn::oid, a.aggminvtransfn::oid),
            ('MFINALFUNC', agg.aggmfinalfn::oid, a.aggmfinalfn::oid)) v(slot, tmplfn, got)
        CROSS JOIN LATERAL (SELECT v.slot, v.got,
                                   coalesce(used[array_position(tmpl, v.tmplfn)], v.tmplfn) AS want) s
        WHERE p.pronamespace = extnsp AND p.proname = agg.proname
          AND p.proargtypes = argtype::text::oidvector
          AND s.got <> s.want AND s.got <> v.tmplfn;
        IF wrong IS NOT NULL THEN
            RAISE EXCEPTION 'typed aggregate %.%(%) was bound to unexpected support functions',
                quote_ident(extname_), quote_ident(agg.proname), format_type(argtype, NULL)
                USING ERRCODE = 'object_not_in_prerequisite_state', DETAIL = wrong || '.';
        END IF;
    END LOOP;
END
$fn$;

REVOKE ALL ON FUNCTION @extschema@.count_distinct_declare_type(pg_catalog.regtype) FROM PUBLIC;

/*
 * The built-in types that get typed overloads: the common types, and every
 * built-in type with an implicit cast to one of them ("char" to text, cidr to
 * inet, the reg* types to oid), which would otherwise no longer resolve to
 * the polymorphic aggregates but to the cast's target.  Superusers only, as
 * count_distinct_declare_type.
 */
CREATE FUNCTION @extschema@.count_distinct_declare_builtin_types()
    RETURNS pg_catalog.void
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    nsp     name;
    t       regtype;
BEGIN
    SELECT n.nspname INTO nsp
    FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
    WHERE e.extname = 'count_distinct';
    IF nsp IS NULL THEN
        RAISE EXCEPTION 'extension "count_distinct" is not installed'
            USING ERRCODE = 'undefined_object';
    END IF;
    FOREACH t IN ARRAY ARRAY[
        'pg_catalog.int2', 'pg_catalog.int4', 'pg_catalog.int8', 'pg_catalog.float4',
        'pg_catalog.float8', 'pg_catalog.numeric', 'pg_catalog.money', 'pg_catalog.oid',
        'pg_catalog.bool', 'pg_catalog."char"', 'pg_catalog.text', 'pg_catalog.varchar',
        'pg_catalog.bpchar', 'pg_catalog.name', 'pg_catalog.bytea', 'pg_catalog.uuid',
        'pg_catalog.date', 'pg_catalog.time', 'pg_catalog.timestamp', 'pg_catalog.timestamptz',
        'pg_catalog.interval', 'pg_catalog.inet', 'pg_catalog.cidr', 'pg_catalog.jsonb',
        'pg_catalog.regproc', 'pg_catalog.regprocedure', 'pg_catalog.regoper',
        'pg_catalog.regoperator', 'pg_catalog.regclass', 'pg_catalog.regtype',
        'pg_catalog.regconfig', 'pg_catalog.regdictionary', 'pg_catalog.regnamespace',
        'pg_catalog.regrole', 'pg_catalog.regcollation'
    ]::regtype[] LOOP
        EXECUTE format('SELECT %I.count_distinct_declare_type($1)', nsp) USING t;
    END LOOP;
END
$fn$;

REVOKE ALL ON FUNCTION @extschema@.count_distinct_declare_builtin_types() FROM PUBLIC;


/* ------------------------------------------------------------------------
 * distinct_set: a stored, exact set of values of one element type (see the
 * README, "Stored sets", and src/dset.h for the format).  A shell type
 * first, for the signatures of its I/O functions.
 * ------------------------------------------------------------------------
 */
CREATE TYPE @extschema@.distinct_set;

CREATE FUNCTION @extschema@.distinct_set_in(pg_catalog.cstring)
    RETURNS @extschema@.distinct_set
    AS 'MODULE_PATHNAME', 'distinct_set_in'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.distinct_set_out(@extschema@.distinct_set)
    RETURNS pg_catalog.cstring
    AS 'MODULE_PATHNAME', 'distinct_set_out'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.distinct_set_recv(pg_catalog.internal)
    RETURNS @extschema@.distinct_set
    AS 'MODULE_PATHNAME', 'distinct_set_recv'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.distinct_set_send(@extschema@.distinct_set)
    RETURNS pg_catalog.bytea
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
CREATE TYPE @extschema@.distinct_set (
    INPUT = @extschema@.distinct_set_in,
    OUTPUT = @extschema@.distinct_set_out,
    RECEIVE = @extschema@.distinct_set_recv,
    SEND = @extschema@.distinct_set_send,
    INTERNALLENGTH = VARIABLE,
    ALIGNMENT = int4,
    STORAGE = extended
);

/* build */
CREATE FUNCTION @extschema@.distinct_set_agg_final(pg_catalog.internal)
    RETURNS @extschema@.distinct_set
    AS 'MODULE_PATHNAME', 'distinct_set_agg_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.distinct_set_agg_moving_final(pg_catalog.internal)
    RETURNS @extschema@.distinct_set
    AS 'MODULE_PATHNAME', 'distinct_set_agg_moving_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

/*
 * The states and support functions of count_distinct (SSPACE, MSSPACE and
 * the moving-aggregate mode of window frames: see there).
 */
CREATE AGGREGATE @extschema@.distinct_set_agg(pg_catalog.anyelement) (
    SFUNC = @extschema@.count_distinct_append,
    STYPE = pg_catalog.internal,
    SSPACE = 88,
    FINALFUNC = @extschema@.distinct_set_agg_final,
    FINALFUNC_MODIFY = SHAREABLE,
    COMBINEFUNC = @extschema@.count_distinct_combine,
    SERIALFUNC = @extschema@.count_distinct_serial,
    DESERIALFUNC = @extschema@.count_distinct_deserial,
    MSFUNC = @extschema@.count_distinct_moving_append,
    MINVFUNC = @extschema@.count_distinct_moving_remove,
    MSTYPE = pg_catalog.internal,
    MSSPACE = 128,
    MFINALFUNC = @extschema@.distinct_set_agg_moving_final,
    MFINALFUNC_MODIFY = READ_ONLY,
    PARALLEL = SAFE
);

CREATE FUNCTION @extschema@.distinct_set(pg_catalog.anyarray)
    RETURNS @extschema@.distinct_set
    AS 'MODULE_PATHNAME', 'distinct_set_from_array'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

/* the binary form (distinct_set_send's bytes) back, validated as binary input */
CREATE FUNCTION @extschema@.distinct_set_from_bytes(pg_catalog.bytea)
    RETURNS @extschema@.distinct_set
    AS 'MODULE_PATHNAME', 'distinct_set_from_bytes'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;

/*
 * A set whose element type is gone (an orphan, docs/security.md) bound to
 * the type of the second argument (NULL::type), every value checked as a
 * value of that type; not STRICT, as that argument is NULL
 */
CREATE FUNCTION @extschema@.distinct_set_recover(@extschema@.distinct_set, pg_catalog.anyelement)
    RETURNS @extschema@.distinct_set
    AS 'MODULE_PATHNAME', 'distinct_set_recover'
    LANGUAGE C STABLE PARALLEL SAFE;

/* the element type (NULL for an orphan), from the header alone */
CREATE FUNCTION @extschema@.distinct_set_element_type(@extschema@.distinct_set)
    RETURNS pg_catalog.regtype
    AS 'MODULE_PATHNAME', 'distinct_set_element_type'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;

/*
 * read; the support function plans cardinality(distinct_set_union_agg(s))
 * and cardinality(distinct_set_intersect_agg(s)) as the counting aggregates
 * below, which skip encoding the set
 */
CREATE FUNCTION @extschema@.distinct_set_cardinality_support(pg_catalog.internal)
    RETURNS pg_catalog.internal
    AS 'MODULE_PATHNAME', 'distinct_set_cardinality_support'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.cardinality(@extschema@.distinct_set)
    RETURNS bigint
    AS 'MODULE_PATHNAME', 'distinct_set_cardinality'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
    SUPPORT @extschema@.distinct_set_cardinality_support;

CREATE FUNCTION @extschema@.distinct_set_to_array(@extschema@.distinct_set, pg_catalog.anyelement)
    RETURNS pg_catalog.anyarray
    AS 'MODULE_PATHNAME', 'distinct_set_to_array'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.distinct_set_values(@extschema@.distinct_set, pg_catalog.anyelement)
    RETURNS SETOF pg_catalog.anyelement
    AS 'MODULE_PATHNAME', 'distinct_set_values'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.distinct_set_contains(@extschema@.distinct_set, pg_catalog.anyelement)
    RETURNS boolean
    AS 'MODULE_PATHNAME', 'distinct_set_contains'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

/* combine */
/* cardinality(a & b), cardinality(a | b), cardinality(a - b) are planned as these */
CREATE FUNCTION @extschema@.distinct_set_intersect_cardinality(@extschema@.distinct_set, @extschema@.distinct_set)
    RETURNS bigint
    AS 'MODULE_PATHNAME', 'distinct_set_intersect_cardinality'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.distinct_set_union_cardinality(@extschema@.distinct_set, @extschema@.distinct_set)
    RETURNS bigint
    AS 'MODULE_PATHNAME', 'distinct_set_union_cardinality'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.distinct_set_except_cardinality(@extschema@.distinct_set, @extschema@.distinct_set)
    RETURNS bigint
    AS 'MODULE_PATHNAME', 'distinct_set_except_cardinality'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.distinct_set_union(@extschema@.distinct_set, @extschema@.distinct_set)
    RETURNS @extschema@.distinct_set
    AS 'MODULE_PATHNAME', 'distinct_set_union'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.distinct_set_intersect(@extschema@.distinct_set, @extschema@.distinct_set)
    RETURNS @extschema@.distinct_set
    AS 'MODULE_PATHNAME', 'distinct_set_intersect'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.distinct_set_except(@extschema@.distinct_set, @extschema@.distinct_set)
    RETURNS @extschema@.distinct_set
    AS 'MODULE_PATHNAME', 'distinct_set_except'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.distinct_set_contains_set(@extschema@.distinct_set, @extschema@.distinct_set)
    RETURNS boolean
    AS 'MODULE_PATHNAME', 'distinct_set_contains_set'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.distinct_set_contained(@extschema@.distinct_set, @extschema@.distinct_set)
    RETURNS boolean
    AS 'MODULE_PATHNAME', 'distinct_set_contained'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.distinct_set_overlaps(@extschema@.distinct_set, @extschema@.distinct_set)
    RETURNS boolean
    AS 'MODULE_PATHNAME', 'distinct_set_overlaps'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

/* union and intersection aggregates: the state serializes as a set */
CREATE FUNCTION @extschema@.distinct_set_union_append(pg_catalog.internal, @extschema@.distinct_set)
    RETURNS pg_catalog.internal
    AS 'MODULE_PATHNAME', 'distinct_set_union_append'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.distinct_set_union_combine(pg_catalog.internal, pg_catalog.internal)
    RETURNS pg_catalog.internal
    AS 'MODULE_PATHNAME', 'distinct_set_union_combine'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.distinct_set_union_final(pg_catalog.internal)
    RETURNS @extschema@.distinct_set
    AS 'MODULE_PATHNAME', 'distinct_set_union_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.distinct_set_agg_serial(pg_catalog.internal)
    RETURNS pg_catalog.bytea
    AS 'MODULE_PATHNAME', 'distinct_set_agg_serial'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.distinct_set_union_count_final(pg_catalog.internal)
    RETURNS bigint
    AS 'MODULE_PATHNAME', 'distinct_set_union_count_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.distinct_set_intersect_count_final(pg_catalog.internal)
    RETURNS bigint
    AS 'MODULE_PATHNAME', 'distinct_set_intersect_count_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

/* sliding window frames: each key's number of the frame's sets (dset_agg.c) */
CREATE FUNCTION @extschema@.distinct_set_union_moving_append(pg_catalog.internal, @extschema@.distinct_set)
    RETURNS pg_catalog.internal
    AS 'MODULE_PATHNAME', 'distinct_set_union_moving_append'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.distinct_set_union_moving_remove(pg_catalog.internal, @extschema@.distinct_set)
    RETURNS pg_catalog.internal
    AS 'MODULE_PATHNAME', 'distinct_set_union_moving_remove'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.distinct_set_union_moving_final(pg_catalog.internal)
    RETURNS @extschema@.distinct_set
    AS 'MODULE_PATHNAME', 'distinct_set_union_moving_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.distinct_set_union_moving_count_final(pg_catalog.internal)
    RETURNS bigint
    AS 'MODULE_PATHNAME', 'distinct_set_union_moving_count_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.distinct_set_union_deserial(pg_catalog.bytea, pg_catalog.internal)
    RETURNS pg_catalog.internal
    AS 'MODULE_PATHNAME', 'distinct_set_union_deserial'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.distinct_set_intersect_append(pg_catalog.internal, @extschema@.distinct_set)
    RETURNS pg_catalog.internal
    AS 'MODULE_PATHNAME', 'distinct_set_intersect_append'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.distinct_set_intersect_combine(pg_catalog.internal, pg_catalog.internal)
    RETURNS pg_catalog.internal
    AS 'MODULE_PATHNAME', 'distinct_set_intersect_combine'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.distinct_set_intersect_final(pg_catalog.internal)
    RETURNS @extschema@.distinct_set
    AS 'MODULE_PATHNAME', 'distinct_set_intersect_final'
    LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.distinct_set_intersect_deserial(pg_catalog.bytea, pg_catalog.internal)
    RETURNS pg_catalog.internal
    AS 'MODULE_PATHNAME', 'distinct_set_intersect_deserial'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

/*
 * SSPACE: the state struct and its first stack of runs; the runs come with
 * the first set.  The final functions merge the union's stack in place and
 * leave the state valid for more rows.
 */
CREATE AGGREGATE @extschema@.distinct_set_union_agg(@extschema@.distinct_set) (
    SFUNC = @extschema@.distinct_set_union_append,
    STYPE = pg_catalog.internal,
    SSPACE = 400,
    FINALFUNC = @extschema@.distinct_set_union_final,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = @extschema@.distinct_set_union_combine,
    SERIALFUNC = @extschema@.distinct_set_agg_serial,
    DESERIALFUNC = @extschema@.distinct_set_union_deserial,
    MSFUNC = @extschema@.distinct_set_union_moving_append,
    MINVFUNC = @extschema@.distinct_set_union_moving_remove,
    MSTYPE = pg_catalog.internal,
    MSSPACE = 400,
    MFINALFUNC = @extschema@.distinct_set_union_moving_final,
    MFINALFUNC_MODIFY = READ_ONLY,
    PARALLEL = SAFE
);

CREATE AGGREGATE @extschema@.distinct_set_intersect_agg(@extschema@.distinct_set) (
    SFUNC = @extschema@.distinct_set_intersect_append,
    STYPE = pg_catalog.internal,
    SSPACE = 400,
    FINALFUNC = @extschema@.distinct_set_intersect_final,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = @extschema@.distinct_set_intersect_combine,
    SERIALFUNC = @extschema@.distinct_set_agg_serial,
    DESERIALFUNC = @extschema@.distinct_set_intersect_deserial,
    PARALLEL = SAFE
);

/* the number of values of the union / intersection, without building it */
CREATE AGGREGATE @extschema@.distinct_set_union_cardinality_agg(@extschema@.distinct_set) (
    SFUNC = @extschema@.distinct_set_union_append,
    STYPE = pg_catalog.internal,
    SSPACE = 400,
    FINALFUNC = @extschema@.distinct_set_union_count_final,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = @extschema@.distinct_set_union_combine,
    SERIALFUNC = @extschema@.distinct_set_agg_serial,
    DESERIALFUNC = @extschema@.distinct_set_union_deserial,
    MSFUNC = @extschema@.distinct_set_union_moving_append,
    MINVFUNC = @extschema@.distinct_set_union_moving_remove,
    MSTYPE = pg_catalog.internal,
    MSSPACE = 400,
    MFINALFUNC = @extschema@.distinct_set_union_moving_count_final,
    MFINALFUNC_MODIFY = READ_ONLY,
    PARALLEL = SAFE
);

CREATE AGGREGATE @extschema@.distinct_set_intersect_cardinality_agg(@extschema@.distinct_set) (
    SFUNC = @extschema@.distinct_set_intersect_append,
    STYPE = pg_catalog.internal,
    SSPACE = 400,
    FINALFUNC = @extschema@.distinct_set_intersect_count_final,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = @extschema@.distinct_set_intersect_combine,
    SERIALFUNC = @extschema@.distinct_set_agg_serial,
    DESERIALFUNC = @extschema@.distinct_set_intersect_deserial,
    PARALLEL = SAFE
);

/*
 * Comparison and hashing: of the stored bytes, which are canonical (equal
 * sets, equal bytes).  The btree order is a total order consistent with
 * "=", for indexes, sorting and merge joins; it is not an order of the
 * values (sets of one type order by their count first).
 */
CREATE FUNCTION @extschema@.distinct_set_eq(@extschema@.distinct_set, @extschema@.distinct_set)
    RETURNS boolean AS 'MODULE_PATHNAME', 'distinct_set_eq'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE FUNCTION @extschema@.distinct_set_ne(@extschema@.distinct_set, @extschema@.distinct_set)
    RETURNS boolean AS 'MODULE_PATHNAME', 'distinct_set_ne'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE FUNCTION @extschema@.distinct_set_lt(@extschema@.distinct_set, @extschema@.distinct_set)
    RETURNS boolean AS 'MODULE_PATHNAME', 'distinct_set_lt'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE FUNCTION @extschema@.distinct_set_le(@extschema@.distinct_set, @extschema@.distinct_set)
    RETURNS boolean AS 'MODULE_PATHNAME', 'distinct_set_le'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE FUNCTION @extschema@.distinct_set_gt(@extschema@.distinct_set, @extschema@.distinct_set)
    RETURNS boolean AS 'MODULE_PATHNAME', 'distinct_set_gt'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE FUNCTION @extschema@.distinct_set_ge(@extschema@.distinct_set, @extschema@.distinct_set)
    RETURNS boolean AS 'MODULE_PATHNAME', 'distinct_set_ge'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE FUNCTION @extschema@.distinct_set_cmp(@extschema@.distinct_set, @extschema@.distinct_set)
    RETURNS integer AS 'MODULE_PATHNAME', 'distinct_set_cmp'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE FUNCTION @extschema@.distinct_set_hash(@extschema@.distinct_set)
    RETURNS integer AS 'MODULE_PATHNAME', 'distinct_set_hash'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE FUNCTION @extschema@.distinct_set_hash_extended(@extschema@.distinct_set, bigint)
    RETURNS bigint AS 'MODULE_PATHNAME', 'distinct_set_hash_extended'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;


/*
 * Operators and operator classes.  Commutators and negators are named with
 * their schema (OPERATOR(schema.op)), so they are this extension's, created
 * as shells by the first operator that names them and filled in by their
 * own CREATE OPERATOR.
 */

CREATE OPERATOR @extschema@.| (
    LEFTARG = @extschema@.distinct_set, RIGHTARG = @extschema@.distinct_set,
    FUNCTION = @extschema@.distinct_set_union,
    COMMUTATOR = OPERATOR(@extschema@.|));

CREATE OPERATOR @extschema@.& (
    LEFTARG = @extschema@.distinct_set, RIGHTARG = @extschema@.distinct_set,
    FUNCTION = @extschema@.distinct_set_intersect,
    COMMUTATOR = OPERATOR(@extschema@.&));

CREATE OPERATOR @extschema@.- (
    LEFTARG = @extschema@.distinct_set, RIGHTARG = @extschema@.distinct_set,
    FUNCTION = @extschema@.distinct_set_except);

CREATE OPERATOR @extschema@.@> (
    LEFTARG = @extschema@.distinct_set, RIGHTARG = @extschema@.distinct_set,
    FUNCTION = @extschema@.distinct_set_contains_set,
    COMMUTATOR = OPERATOR(@extschema@.<@), RESTRICT = pg_catalog.contsel, JOIN = pg_catalog.contjoinsel);

CREATE OPERATOR @extschema@.<@ (
    LEFTARG = @extschema@.distinct_set, RIGHTARG = @extschema@.distinct_set,
    FUNCTION = @extschema@.distinct_set_contained,
    COMMUTATOR = OPERATOR(@extschema@.@>), RESTRICT = pg_catalog.contsel, JOIN = pg_catalog.contjoinsel);

CREATE OPERATOR @extschema@.&& (
    LEFTARG = @extschema@.distinct_set, RIGHTARG = @extschema@.distinct_set,
    FUNCTION = @extschema@.distinct_set_overlaps,
    COMMUTATOR = OPERATOR(@extschema@.&&), RESTRICT = pg_catalog.contsel, JOIN = pg_catalog.contjoinsel);

CREATE OPERATOR @extschema@.= (
    LEFTARG = @extschema@.distinct_set, RIGHTARG = @extschema@.distinct_set,
    FUNCTION = @extschema@.distinct_set_eq,
    COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>), RESTRICT = pg_catalog.eqsel, JOIN = pg_catalog.eqjoinsel, HASHES, MERGES);

CREATE OPERATOR @extschema@.<> (
    LEFTARG = @extschema@.distinct_set, RIGHTARG = @extschema@.distinct_set,
    FUNCTION = @extschema@.distinct_set_ne,
    COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=), RESTRICT = pg_catalog.neqsel, JOIN = pg_catalog.neqjoinsel);

CREATE OPERATOR @extschema@.< (
    LEFTARG = @extschema@.distinct_set, RIGHTARG = @extschema@.distinct_set,
    FUNCTION = @extschema@.distinct_set_lt,
    COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=), RESTRICT = pg_catalog.scalarltsel, JOIN = pg_catalog.scalarltjoinsel);

CREATE OPERATOR @extschema@.<= (
    LEFTARG = @extschema@.distinct_set, RIGHTARG = @extschema@.distinct_set,
    FUNCTION = @extschema@.distinct_set_le,
    COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>), RESTRICT = pg_catalog.scalarlesel, JOIN = pg_catalog.scalarlejoinsel);

CREATE OPERATOR @extschema@.> (
    LEFTARG = @extschema@.distinct_set, RIGHTARG = @extschema@.distinct_set,
    FUNCTION = @extschema@.distinct_set_gt,
    COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=), RESTRICT = pg_catalog.scalargtsel, JOIN = pg_catalog.scalargtjoinsel);

CREATE OPERATOR @extschema@.>= (
    LEFTARG = @extschema@.distinct_set, RIGHTARG = @extschema@.distinct_set,
    FUNCTION = @extschema@.distinct_set_ge,
    COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<), RESTRICT = pg_catalog.scalargesel, JOIN = pg_catalog.scalargejoinsel);

/*
 * Each operator class in a family of its own, created first: CREATE
 * OPERATOR CLASS without FAMILY would use an existing family of the same
 * name instead of failing.
 */
CREATE OPERATOR FAMILY @extschema@.distinct_set_ops USING btree;

CREATE OPERATOR CLASS @extschema@.distinct_set_ops
    DEFAULT FOR TYPE @extschema@.distinct_set USING btree FAMILY @extschema@.distinct_set_ops AS
        OPERATOR 1 @extschema@.<,
        OPERATOR 2 @extschema@.<=,
        OPERATOR 3 @extschema@.=,
        OPERATOR 4 @extschema@.>=,
        OPERATOR 5 @extschema@.>,
        FUNCTION 1 @extschema@.distinct_set_cmp(@extschema@.distinct_set, @extschema@.distinct_set);

CREATE OPERATOR FAMILY @extschema@.distinct_set_hash_ops USING hash;

CREATE OPERATOR CLASS @extschema@.distinct_set_hash_ops
    DEFAULT FOR TYPE @extschema@.distinct_set USING hash FAMILY @extschema@.distinct_set_hash_ops AS
        OPERATOR 1 @extschema@.=,
        FUNCTION 1 @extschema@.distinct_set_hash(@extschema@.distinct_set),
        FUNCTION 2 @extschema@.distinct_set_hash_extended(@extschema@.distinct_set, bigint);

/*
 * Installed with the extension where Citus is: see count_distinct_declare_type
 * for why not everywhere.  Last, so that every polymorphic aggregate above
 * (distinct_set_agg too) gets its typed overloads.
 */
SELECT @extschema@.count_distinct_declare_builtin_types()
FROM pg_catalog.pg_extension
WHERE extname OPERATOR(pg_catalog.=) 'citus';
