#!/usr/bin/env bash
# Differential test under adversarial session settings (see
# test/settingstest.py): every type category, serial / spilling / parallel
# plans, under a deterministic sample of client_encoding, extra_float_digits,
# DateStyle, IntervalStyle, TimeZone, bytea_output and lc_* combinations,
# against native COUNT(DISTINCT) / array_agg(DISTINCT) in the same statement.
#
# Uses the cluster from test/run-all.sh (PGHOST, PGPORT, ..., CD_CLUSTER_BINDIR).
#   CD_SETTINGS_COMBOS  number of combinations of settings (default 6;
#                       CD_LONG=1: 24)
#   CD_SETTINGS_SEED    seed of the sample (default 1)
# Only python3 (standard library) and psql are needed.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
command -v python3 >/dev/null || { apt-get install -y -qq python3 >/dev/null 2>&1 || true; }
command -v python3 >/dev/null || { echo "settings: python3 is missing"; echo "settings: 0 passed, 1 failed"; exit 1; }

combos=${CD_SETTINGS_COMBOS:-6}
[ "${CD_LONG:-0}" = 1 ] && combos=${CD_SETTINGS_COMBOS:-24}
exec python3 "$here/settingstest.py" --combos "$combos" --seed "${CD_SETTINGS_SEED:-1}"
