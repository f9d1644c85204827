-- concurrent writes: readers compare within one snapshot
\set id random(100001, 200000)
INSERT INTO cd_bench VALUES (:id, :id % 97, (:id * 7919) % 20011, :id / 8.0, ARRAY[:id % 53]);
DELETE FROM cd_bench WHERE id = :id - 50;
