#!/usr/bin/env python3
"""Checked documentation examples, and the reference's completeness.

The convention (README.md, docs/*.md): a fenced ```sql block immediately
followed (only blank lines between) by a fenced ```text block is a checked
example: the text block holds exactly what `psql -X -q` (aligned format,
default settings) prints for the SQL block, errors included ("ERROR:  ...",
with their DETAIL and HINT lines).  A ```sql block with no ```text block
after it is shown, not run.

For each file, the checked examples run in order in one psql session, in a
fresh database (template0) where the extension was created; each block's
output is compared with its text block, line by line with trailing blanks
and leading or trailing blank lines ignored.

--reference FILE: also check that FILE documents every user-facing object of
the installed extension: each member function and aggregate that neither
takes nor returns `internal` (by its signature, as regprocedure prints it),
each operator (`distinct_set OP distinct_set`) and each setting named
`count_distinct.*` must appear in a heading of FILE whose section holds a
checked example; and every SQLSTATE the C sources raise (errcode(ERRCODE_*) in
src/) or the install script raises (RAISE ... USING ERRCODE)
must appear in FILE.

--tests-table FILE: FILE names (in backquotes) every test/drivers/*.sh and
every test/sql/*.sql.

--links [MORE ...]: also check that every relative link and image of the
files (and of MORE) points to an existing file and, with #anchor, to a
heading of it (GitHub's anchors).

Prints "ok:" / "FAIL:" lines and "N passed, N failed" last; exits 1 on any
failure.  Needs psql on PATH or --psql, and PGHOST/PGPORT/PGUSER set.
"""

import argparse
import os
import re
import subprocess
import sys

FENCE = re.compile(r"^```(\w*)\s*$")


def blocks(path):
    """[(line, sql, expected or None)] of a markdown file."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    fenced = []  # (kind, first line number, text, index of the line after)
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if m and m.group(1):
            kind, start = m.group(1), i + 1
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            fenced.append((kind, start, "\n".join(lines[i + 1:j]), i, j + 1))
            i = j + 1
            continue
        i += 1
    out = []
    for n, (kind, start, text, _, after) in enumerate(fenced):
        if kind != "sql":
            continue
        expected = None
        if n + 1 < len(fenced) and fenced[n + 1][0] == "text":
            between = lines[after:fenced[n + 1][3]]
            if all(not s.strip() for s in between):
                expected = fenced[n + 1][2]
        out.append((start, text, expected))
    return out


def norm(text):
    ls = [s.rstrip() for s in text.split("\n")]
    while ls and not ls[0]:
        ls.pop(0)
    while ls and not ls[-1]:
        ls.pop()
    return ls


def psql(args, db, stdin=None):
    cmd = [args.psql, "-X", "-q", "-d", db]
    env = dict(os.environ)
    env.pop("PGOPTIONS", None)
    env["PGTZ"] = "UTC"
    env["PGDATESTYLE"] = "ISO, MDY"
    env["LC_ALL"] = "C.UTF-8"
    return subprocess.run(cmd, input=stdin, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, env=env).stdout


def admin(args, sql):
    r = subprocess.run([args.psql, "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1",
                        "-d", "postgres", "-c", sql], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    return r.returncode, r.stdout


class Result:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def ok(self, msg):
        self.passed += 1
        print("ok: " + msg)

    def bad(self, msg):
        self.failed += 1
        print("FAIL: " + msg)


def run_file(args, res, path, index):
    checked = [(ln, sql, exp) for ln, sql, exp in blocks(path) if exp is not None]
    name = os.path.relpath(path, args.root)
    if not checked:
        res.ok("%s: no checked examples" % name)
        return
    db = "cd_doc_%d" % index
    rc, out = admin(args, "DROP DATABASE IF EXISTS %s" % db)
    rc, out = admin(args, "CREATE DATABASE %s TEMPLATE template0 ENCODING 'UTF8' "
                          "LC_COLLATE 'C.UTF-8' LC_CTYPE 'C.UTF-8'" % db)
    if rc != 0:
        res.bad("%s: cannot create a database: %s" % (name, out.strip()))
        return
    try:
        rc, out = subprocess.run(
            [args.psql, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", db, "-c",
             "CREATE EXTENSION count_distinct"], stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True).returncode, ""
        if rc != 0:
            res.bad("%s: CREATE EXTENSION failed" % name)
            return
        script = []
        for n, (ln, sql, _) in enumerate(checked):
            script.append(sql.rstrip())
            # a statement left open by the example ends here, not inside the marker
            script.append("\\echo @@cd-doc-example-%d@@" % n)
        out = psql(args, db, "\n".join(script) + "\n")
        parts = re.split(r"^@@cd-doc-example-(\d+)@@\n", out, flags=re.M)
        got = {}
        # parts: [text0, '0', text1, '1', ..., rest]
        for k in range(1, len(parts) - 1, 2):
            got[int(parts[k])] = parts[k - 1]
        for n, (ln, sql, exp) in enumerate(checked):
            where = "%s:%d" % (name, ln)
            if n not in got:
                res.bad("%s: no output (the session ended early?)" % where)
                continue
            g, e = norm(got[n]), norm(exp)
            if g == e:
                res.ok(where)
            else:
                res.bad("%s: output differs\n--- shown\n%s\n--- printed\n%s\n---"
                        % (where, "\n".join(e), "\n".join(g)))
    finally:
        admin(args, "DROP DATABASE IF EXISTS %s" % db)


def sections(path):
    """[(heading text, body)] for every heading of a markdown file (outside fences)."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    heads = []
    infence = False
    for i, s in enumerate(lines):
        if s.startswith("```"):
            infence = not infence
        elif not infence and re.match(r"^#{1,6} ", s):
            level = len(s) - len(s.lstrip("#"))
            heads.append((i, level, s))
    out = []
    for k, (i, level, s) in enumerate(heads):
        end = len(lines)
        for i2, l2, _ in heads[k + 1:]:
            if l2 <= level:
                end = i2
                break
        out.append((s, "\n".join(lines[i + 1:end])))
    return out


def squash(s):
    return re.sub(r"\s+", "", s).replace("`", "")


def check_reference(args, res, path):
    name = os.path.relpath(path, args.root)
    db = "cd_doc_ref"
    admin(args, "DROP DATABASE IF EXISTS %s" % db)
    rc, out = admin(args, "CREATE DATABASE %s TEMPLATE template0" % db)
    if rc != 0:
        res.bad("%s: cannot create a database: %s" % (name, out.strip()))
        return
    try:
        q = """
CREATE EXTENSION count_distinct;
SELECT count_distinct(1);
SELECT 'f ' || p.oid::regprocedure::text
FROM pg_depend d JOIN pg_proc p ON p.oid = d.objid
WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'count_distinct')
  AND d.classid = 'pg_proc'::regclass AND d.deptype = 'e'
  AND p.prorettype <> 'internal'::regtype
  AND NOT 'internal'::regtype = ANY (p.proargtypes::oid[])
UNION ALL
SELECT 'o ' || format_type(o.oprleft, NULL) || ' ' || o.oprname || ' '
       || format_type(o.oprright, NULL)
FROM pg_depend d JOIN pg_operator o ON o.oid = d.objid
WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'count_distinct')
  AND d.classid = 'pg_operator'::regclass AND d.deptype = 'e'
UNION ALL
SELECT 's ' || name FROM pg_settings WHERE name LIKE 'count\\_distinct.%'
ORDER BY 1;
"""
        r = subprocess.run([args.psql, "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1",
                            "-d", db], input=q, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            res.bad("%s: catalog query failed: %s" % (name, r.stdout.strip()))
            return
        objects = [s for s in r.stdout.split("\n") if s[:2] in ("f ", "o ", "s ")]
    finally:
        admin(args, "DROP DATABASE IF EXISTS %s" % db)
    if not any(o.startswith("s ") for o in objects):
        res.bad("%s: no count_distinct.* setting found (library not loaded?)" % name)
    secs = [(squash(h), body) for h, body in sections(path)]
    example_re = re.compile(r"```sql\n.*?\n```\s*\n```text\n", re.S)
    missing = []
    for o in objects:
        kind, what = o[0], o[2:]
        key = squash(what)
        found = [body for h, body in secs if key in h]
        if not found:
            missing.append("%s (no heading names it)" % what)
        elif not any(example_re.search(b + "\n") for b in found):
            missing.append("%s (its section has no checked example)" % what)
    if missing:
        for m in missing:
            res.bad("%s: %s" % (name, m))
    else:
        res.ok("%s: every function, aggregate, operator and setting (%d) has a "
               "heading and a checked example" % (name, len(objects)))
    # SQLSTATEs the C code raises
    hdr = os.path.join(args.includedir_server, "utils", "errcodes.h")
    codes = {}
    with open(hdr) as f:
        for s in f:
            m = re.match(r"#define (ERRCODE_\w+) MAKE_SQLSTATE\('(.)','(.)','(.)','(.)','(.)'\)", s)
            if m:
                codes[m.group(1)] = "".join(m.group(k) for k in range(2, 7))
    used = set()
    srcdir = os.path.join(args.root, "src")
    for dirpath, _, files in os.walk(srcdir):
        for fn in files:
            if fn.endswith((".c", ".h")):
                with open(os.path.join(dirpath, fn), encoding="utf-8", errors="replace") as f:
                    used.update(re.findall(r"\berrcode\(\s*(ERRCODE_[A-Z_0-9]+)\b", f.read()))
    sqldir = os.path.join(args.root, "sql")
    for fn in os.listdir(sqldir):
        if re.match(r"count_distinct--[0-9.]+\.sql$", fn):
            with open(os.path.join(sqldir, fn), encoding="utf-8") as f:
                used.update("ERRCODE_" + c.upper()
                            for c in re.findall(r"ERRCODE\s*=\s*'(\w+)'", f.read()))
    with open(path, encoding="utf-8") as f:
        text = f.read()
    absent = sorted("%s (%s)" % (codes[c], c) for c in used
                    if c in codes and codes[c] not in text)
    unknown = sorted(c for c in used if c not in codes)
    if unknown:
        res.bad("%s: unknown error codes in src/: %s" % (name, ", ".join(unknown)))
    if absent:
        res.bad("%s: SQLSTATEs raised by src/ or the install script but not documented: %s" % (name, ", ".join(absent)))
    else:
        res.ok("%s: every SQLSTATE raised by src/ and the install script (%d) is documented" % (name, len(used)))


def slug(heading, seen):
    """The anchor GitHub gives a heading (duplicates get -1, -2, ...)."""
    text = re.sub(r"^#+\s*", "", heading).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text).replace(" ", "-")
    n = seen.get(text, 0)
    seen[text] = n + 1
    return text if n == 0 else "%s-%d" % (text, n)


def anchors(path):
    seen = {}
    return {slug(h, seen) for h, _ in sections(path)}


def check_links(args, res, paths):
    """Relative links and images of the files: the target exists, and an
    #anchor names a heading of the target (or of the file itself)."""
    link = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
    cache = {}
    for path in paths:
        name = os.path.relpath(path, args.root)
        bad = []
        n = 0
        with open(path, encoding="utf-8") as f:
            text = f.read()
        text = re.sub(r"```.*?```", "", text, flags=re.S)   # not inside fences
        for target in link.findall(text):
            if re.match(r"^[a-z]+:", target):
                continue                                    # http:, https:, mailto:
            n += 1
            file, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
            if not os.path.exists(dest):
                bad.append("%s (no such file)" % target)
                continue
            if anchor and dest.endswith(".md"):
                if dest not in cache:
                    cache[dest] = anchors(dest)
                if anchor not in cache[dest]:
                    bad.append("%s (no such heading)" % target)
        if bad:
            res.bad("%s: broken links: %s" % (name, ", ".join(bad)))
        else:
            res.ok("%s: %d relative links and images resolve" % (name, n))


def check_test_tables(args, res, path):
    """DEVELOPMENT.md names every test driver and every pg_regress test."""
    name = os.path.relpath(path, args.root)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    missing = []
    for sub, ext in (("test/drivers", ".sh"), ("test/sql", ".sql")):
        for fn in sorted(os.listdir(os.path.join(args.root, sub))):
            if fn.endswith(ext) and ("`%s`" % fn) not in text:
                missing.append("%s/%s" % (sub, fn))
    if missing:
        res.bad("%s does not describe: %s" % (name, ", ".join(missing)))
    else:
        res.ok("%s describes every test driver and pg_regress test" % name)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--psql", default="psql")
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(
        os.path.dirname(os.path.abspath(__file__)))))
    ap.add_argument("--reference")
    ap.add_argument("--includedir-server", default="")
    ap.add_argument("--tests-table",
                    help="a file that must name every test/drivers/*.sh and test/sql/*.sql")
    ap.add_argument("--links", nargs="*", default=None,
                    help="check the relative links of the files and of these too")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    res = Result()
    for k, path in enumerate(args.files):
        run_file(args, res, path, k)
    if args.links:
        check_links(args, res, args.files + args.links)
    if args.reference:
        check_reference(args, res, args.reference)
    if args.tests_table:
        check_test_tables(args, res, args.tests_table)
    print("%d passed, %d failed" % (res.passed, res.failed))
    sys.exit(1 if res.failed else 0)


if __name__ == "__main__":
    main()
