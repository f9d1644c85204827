/*
 * count_distinct 4.0.0 -> 4.1.0: window frames (moving-aggregate mode),
 * array_agg_distinct(anyarray), typed overloads.  The four aggregates of
 * 4.0.0 (members) are replaced in place; everything else is new.
 *
 * The functions count_distinct_declare_type and
 * count_distinct_declare_builtin_types are created as 4.1.0 had them; a
 * later step replaces them.  4.1.0's install script also declared the
 * built-in types' typed overloads where Citus is installed; on the way up,
 * the last step does that (count_distinct_declare_builtin_types brings them
 * up to date, or creates them), with the current functions.
 */

/* final function of array_agg_distinct(anyarray) */
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
CREATE OR REPLACE AGGREGATE @extschema@.count_distinct(pg_catalog.anyelement) (
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

CREATE OR REPLACE AGGREGATE @extschema@.count_distinct_elements(pg_catalog.anyarray) (
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

CREATE OR REPLACE AGGREGATE @extschema@.array_agg_distinct(pg_catalog.anynonarray) (
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

CREATE OR REPLACE AGGREGATE @extschema@.array_agg_distinct_elements(pg_catalog.anyarray) (
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


/* typed overloads (the comment in the install script explains them) */
CREATE FUNCTION @extschema@.count_distinct_declare_type(type pg_catalog.regtype)
    RETURNS pg_catalog.void
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
CREATE FUNCTION @extschema@.count_distinct_declare_builtin_types()
    RETURNS pg_catalog.void
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

