-- Window frames under a nondeterministic collation: equal values with
-- different bytes are one value, and a row leaving the frame cancels an
-- equal row that entered with other bytes ('ABC' leaving cancels 'abc').
-- Skipped (window_icu_1.out) where the server has no ICU collations (built
-- without ICU; 16+ lists "unicode" even then) or the encoding is not UTF8.
SELECT getdatabaseencoding() <> 'UTF8' OR
       NOT EXISTS (SELECT FROM pg_collation WHERE collprovider = 'i' AND collname <> 'unicode')
       AS skip_test \gset
\if :skip_test
\quit
\endif
CREATE COLLATION wci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);

SELECT i, v,
       count_distinct(v COLLATE wci) OVER w AS cd,
       array_length(array_agg_distinct(v COLLATE wci) OVER w, 1) AS n,
       count_distinct(v) OVER w AS cd_bytes
FROM (VALUES (1, 'abc'), (2, 'ABC'), (3, 'x'), (4, 'Abc'), (5, 'X'), (6, 'y'), (7, 'Y')) t(i, v)
WINDOW w AS (ORDER BY i ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)
ORDER BY i;

-- random case changes, every frame kind, against native COUNT(DISTINCT)
-- over the rows native array_agg(i) puts in the same frame
CREATE TABLE wci_t AS
SELECT i, i / 3 AS k, date '2024-01-01' + i / 4 AS d,
       CASE WHEN x % 9 = 0 THEN NULL WHEN x % 2 = 0 THEN upper(md5((x % 12)::text))
            ELSE md5((x % 12)::text) END COLLATE wci AS v
FROM (SELECT i, (i * 7919) % 401 AS x FROM generate_series(1, 400) i) s;

CREATE FUNCTION check_ci(frame text, OUT nrows bigint, OUT ndiffer bigint)
LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format(
    'SELECT count(*), count(*) FILTER (WHERE s.cd IS DISTINCT FROM l.n
                                       OR lower(s.ad::text) IS DISTINCT FROM lower(l.na::text))
     FROM (SELECT i, count_distinct(v) OVER w AS cd, array_agg_distinct(v) OVER w AS ad,
                  array_agg(i) OVER w AS ids
           FROM wci_t WINDOW w AS (%s)) s,
     LATERAL (SELECT count(DISTINCT t2.v) AS n,
                     coalesce(array_agg(DISTINCT t2.v ORDER BY t2.v)
                              FILTER (WHERE t2.v IS NOT NULL), %L) AS na
              FROM wci_t t2 WHERE t2.i = ANY (s.ids)) l', frame, '{}')
  INTO nrows, ndiffer;
END
$$;

SELECT f AS frame, r.*
FROM unnest(ARRAY[
       'ORDER BY i ROWS UNBOUNDED PRECEDING',
       'ORDER BY i ROWS BETWEEN 7 PRECEDING AND CURRENT ROW',
       'ORDER BY d RANGE BETWEEN ''2 days'' PRECEDING AND CURRENT ROW',
       'ORDER BY k GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE CURRENT ROW']) f,
     LATERAL check_ci(f) r;

DROP FUNCTION check_ci(text);
DROP TABLE wci_t;
DROP COLLATION wci;
