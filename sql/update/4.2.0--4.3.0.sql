/*
 * count_distinct 4.2.0 -> 4.3.0.
 *
 * Security: 4.2.0 created distinct_set, its operators and operator classes
 * only where no object of that name existed, so someone who could create
 * objects in the extension's schema before CREATE EXTENSION or the update
 * to 4.2.0 could have had 4.2.0's C functions bound to a type of their own.
 * Such a catalog is refused here: the extension must be dropped and created
 * again.
 */
CREATE FUNCTION @extschema@.count_distinct_update_check_4_2_0()
    RETURNS pg_catalog.void
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    ext     oid;
    settype oid;
    foreign_ text;
BEGIN
    SELECT e.oid INTO ext FROM pg_extension e WHERE e.extname = 'count_distinct';
    SELECT t.oid INTO settype
    FROM pg_depend d JOIN pg_type t ON t.oid = d.objid
    WHERE d.classid = 'pg_type'::regclass AND d.refclassid = 'pg_extension'::regclass
      AND d.refobjid = ext AND d.deptype = 'e' AND t.typname = 'distinct_set';
    /* the types of member functions' arguments and results named distinct_set */
    SELECT string_agg(DISTINCT format('%s uses %s', p.oid::regprocedure, x.typ::regtype), '; ')
    INTO foreign_
    FROM pg_depend d
    JOIN pg_proc p ON p.oid = d.objid
    CROSS JOIN LATERAL unnest(p.proargtypes::oid[] || p.prorettype) x(typ)
    JOIN pg_type t ON t.oid = x.typ
    WHERE d.classid = 'pg_proc'::regclass AND d.refclassid = 'pg_extension'::regclass
      AND d.refobjid = ext AND d.deptype = 'e'
      AND t.typname IN ('distinct_set', '_distinct_set')
      AND x.typ IS DISTINCT FROM settype AND t.typelem IS DISTINCT FROM settype;
    IF settype IS NULL OR foreign_ IS NOT NULL THEN
        RAISE EXCEPTION 'count_distinct 4.2.0 in this database is bound to a type distinct_set that is not its own'
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = coalesce(foreign_ || '.', 'The extension has no type distinct_set.'),
                  HINT = 'Drop the extension (DROP EXTENSION count_distinct CASCADE) and the type, and create the extension again.';
    END IF;
END
$fn$;

SELECT @extschema@.count_distinct_update_check_4_2_0();
DROP FUNCTION @extschema@.count_distinct_update_check_4_2_0();

/*
 * count_distinct_declare_type and count_distinct_declare_builtin_types
 * (members): DDL by schema-qualified, quoted names, a superuser check,
 * EXECUTE revoked from PUBLIC (see the install script)
 */
CREATE OR REPLACE FUNCTION @extschema@.count_distinct_declare_type(type pg_catalog.regtype)
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
CREATE OR REPLACE FUNCTION @extschema@.count_distinct_declare_builtin_types()
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

/* new in 4.3.0 (see the install script) */
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
 * The typed overloads of the built-in types where Citus is installed: made
 * up to date where they exist (members), created where they do not (the
 * earlier steps leave that to this one)
 */
SELECT @extschema@.count_distinct_declare_builtin_types()
FROM pg_catalog.pg_extension
WHERE extname OPERATOR(pg_catalog.=) 'citus';
