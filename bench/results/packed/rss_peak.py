#!/usr/bin/env python3
# usage: rss_peak.py PSQL QUERY
# Runs QUERY in one psql session (serial, work_mem 4GB, enable_sort off) and
# samples the backend's RssAnon (/proc/<pid>/status) every 5 ms; prints the
# result and the peak minus the value before the query, in kB.  Must run on
# the server's machine, as root or the server's user.
import re
import subprocess
import sys
import threading
import time

psql, query = sys.argv[1], sys.argv[2]
p = subprocess.Popen([psql, '-X', '-q', '-At', '-v', 'ON_ERROR_STOP=1'],
                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
p.stdin.write("SET max_parallel_workers_per_gather = 0; SET work_mem = '4GB'; "
              "SET enable_sort = off;\nSELECT pg_backend_pid();\n")
p.stdin.flush()
pid = int(p.stdout.readline())


def rss():
    with open(f'/proc/{pid}/status') as f:
        return int(re.search(r'RssAnon:\s+(\d+)', f.read()).group(1))


base = rss()
peak = base
done = False


def sample():
    global peak
    while not done:
        peak = max(peak, rss())
        time.sleep(0.005)


t = threading.Thread(target=sample)
t.start()
p.stdin.write(query.rstrip(';') + ";\n")
p.stdin.flush()
out = p.stdout.readline().strip()
done = True
t.join()
p.stdin.close()
p.wait()
print(f"result={out} base_kB={base} peak_delta_kB={peak - base}")
