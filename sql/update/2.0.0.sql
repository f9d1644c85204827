/*
 * From count_distinct 2.0.0 (the previous implementation).
 *
 * 2.0.0's catalog depended on the server it was installed on and changed
 * during 2.0.0's development: the combine, serialize and deserialize
 * functions (with named parameters, as in 3.0.x) exist only where the server
 * had parallel aggregation, and array_agg_distinct_elements and its final
 * function only in later copies.  So the functions are moved aside only
 * where they exist (see 3.0.x.sql for why), and the old ones dropped if
 * present; the install script creates or replaces the rest.
 */
DO $$
DECLARE
    f text;
BEGIN
    FOREACH f IN ARRAY ARRAY['count_distinct_combine(internal, internal)',
                             'count_distinct_serial(internal)',
                             'count_distinct_deserial(bytea, internal)']
    LOOP
        IF to_regprocedure(f) IS NOT NULL THEN
            EXECUTE format('ALTER FUNCTION %s RENAME TO %I',
                           f, split_part(f, '(', 1) || '_2_0');
        END IF;
    END LOOP;
END
$$;

-- @install script@

/* no aggregate points at these any more */
DROP FUNCTION IF EXISTS count_distinct_combine_2_0(internal, internal);
DROP FUNCTION IF EXISTS count_distinct_serial_2_0(internal);
DROP FUNCTION IF EXISTS count_distinct_deserial_2_0(bytea, internal);
DROP FUNCTION count_distinct(internal);
DROP FUNCTION array_agg_distinct(internal, anynonarray);
DROP FUNCTION IF EXISTS array_agg_distinct(internal, anyarray);
