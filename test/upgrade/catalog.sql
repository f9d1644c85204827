-- The count_distinct extension's catalog as sorted text lines, without OIDs
-- (objects by name, types by name): an updated database and a fresh
-- CREATE EXTENSION of the same version must print the same lines.
\pset format unaligned
\pset tuples_only on
WITH ext AS (
    SELECT e.* FROM pg_extension e WHERE e.extname = 'count_distinct'
), members AS (
    SELECT d.classid, d.objid
    FROM pg_depend d, ext
    WHERE d.refclassid = 'pg_extension'::regclass AND d.refobjid = ext.oid
      AND d.deptype = 'e'
)
SELECT line FROM (
    SELECT format('extension %s version=%s relocatable=%s schema=%s config=%s condition=%s',
                  extname, extversion, extrelocatable, extnamespace::regnamespace,
                  extconfig::regclass[], extcondition) AS line
    FROM ext
    UNION ALL
    SELECT 'member ' || pg_describe_object(classid, objid, 0) FROM members
    UNION ALL
    -- every pg_proc column, OIDs replaced by names
    SELECT format('function %s %s lang=%s owner=%s returns=%s args=%s allargs=%s variadic=%s def=%s',
                  p.oid::regprocedure,
                  to_jsonb(p) - ARRAY['oid', 'pronamespace', 'proowner', 'prolang', 'prorettype',
                                      'proargtypes', 'proallargtypes', 'provariadic', 'prosqlbody'],
                  l.lanname, pg_get_userbyid(p.proowner), p.prorettype::regtype,
                  p.proargtypes::oid[]::regtype[], p.proallargtypes::regtype[],
                  p.provariadic::regtype,
                  CASE WHEN p.prokind <> 'a' THEN replace(pg_get_functiondef(p.oid), E'\n', ' ') END)
    FROM members m JOIN pg_proc p ON m.classid = 'pg_proc'::regclass AND p.oid = m.objid
    JOIN pg_language l ON l.oid = p.prolang
    UNION ALL
    -- every pg_aggregate column, OIDs replaced by names
    SELECT format('aggregate %s %s transfn=%s finalfn=%s combinefn=%s serialfn=%s deserialfn=%s '
                  'mtransfn=%s minvtransfn=%s mfinalfn=%s sortop=%s transtype=%s mtranstype=%s',
                  a.aggfnoid::regprocedure,
                  to_jsonb(a) - ARRAY['aggfnoid', 'aggtransfn', 'aggfinalfn', 'aggcombinefn',
                                      'aggserialfn', 'aggdeserialfn', 'aggmtransfn',
                                      'aggminvtransfn', 'aggmfinalfn', 'aggsortop',
                                      'aggtranstype', 'aggmtranstype'],
                  a.aggtransfn::regprocedure, a.aggfinalfn::regprocedure,
                  a.aggcombinefn::regprocedure, a.aggserialfn::regprocedure,
                  a.aggdeserialfn::regprocedure, a.aggmtransfn::regprocedure,
                  a.aggminvtransfn::regprocedure, a.aggmfinalfn::regprocedure,
                  a.aggsortop::regoperator, a.aggtranstype::regtype, a.aggmtranstype::regtype)
    FROM members m JOIN pg_aggregate a ON m.classid = 'pg_proc'::regclass AND a.aggfnoid = m.objid
    UNION ALL
    -- what the members depend on (besides the extension)
    SELECT format('depend %s -> %s (%s)',
                  pg_describe_object(d.classid, d.objid, d.objsubid),
                  pg_describe_object(d.refclassid, d.refobjid, d.refobjsubid), d.deptype)
    FROM pg_depend d JOIN members m ON (d.classid, d.objid) = (m.classid, m.objid)
    WHERE d.deptype <> 'e'
    UNION ALL
    SELECT format('comment %s: %s', pg_describe_object(c.classoid, c.objoid, c.objsubid), c.description)
    FROM pg_description c JOIN members m ON (c.classoid, c.objoid) = (m.classid, m.objid)
    UNION ALL
    SELECT format('initprivs %s %s %s', pg_describe_object(i.classoid, i.objoid, i.objsubid),
                  i.privtype, i.initprivs)
    FROM pg_init_privs i JOIN members m ON (i.classoid, i.objoid) = (m.classid, m.objid)
) s
ORDER BY line COLLATE "C";
