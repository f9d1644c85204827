#!/usr/bin/env bash
# Throwaway PostgreSQL cluster helpers; source this file.
#
#   cd_install_deps [VERSION]   apt-get the server and headers (Debian), once
#   cd_cluster_start BINDIR [PORT]
#                               initdb + start a cluster as a non-root user on
#                               a socket in a fresh temp dir; exports PGHOST,
#                               PGPORT, PGUSER, PGDATABASE and CD_CLUSTER_DIR
#   cd_cluster_stop             stop that cluster (only ours) and remove it
#   cd_probe_features           optional features of that cluster, for
#                               reports: exports CD_HAVE_ICU, CD_HAVE_CITEXT,
#                               CD_SERVER_NUM (the pg_regress tests that need
#                               them check by themselves, with psql's \if)
#
# Extra server settings can be passed in CD_PG_OPTS (e.g. "-c work_mem=1GB").

cd_install_deps() {
    local v=${1:-15}
    local pkgs="postgresql-$v postgresql-server-dev-$v make gcc libc6-dev"  # postgresql-$v has contrib (citext)
    local missing=""
    for p in $pkgs; do
        dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
    done
    if [ -n "$missing" ]; then
        if [ "$(id -u)" != 0 ]; then
            echo "missing packages:$missing (run as root to install them)" >&2
            return 1
        fi
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
    fi
}

# run a command as the cluster owner (initdb refuses root)
cd_as_owner() {
    if [ "$(id -u)" = 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

cd_cluster_start() {
    local bindir=$1
    local port=${2:-$((20000 + RANDOM % 20000))}
    CD_CLUSTER_DIR=$(mktemp -d /tmp/count_distinct_pg.XXXXXX)
    if [ "$(id -u)" = 0 ]; then
        id postgres >/dev/null 2>&1 || useradd --system --no-create-home postgres
        chown postgres: "$CD_CLUSTER_DIR"
    fi
    chmod 755 "$CD_CLUSTER_DIR"
    cd_as_owner mkdir -p "$CD_CLUSTER_DIR/sock"
    cd_as_owner "$bindir/initdb" -D "$CD_CLUSTER_DIR/data" -U postgres --auth=trust \
        --no-sync -E UTF8 --locale=C.UTF-8 >"$CD_CLUSTER_DIR/initdb.log" 2>&1 \
        || { cat "$CD_CLUSTER_DIR/initdb.log" >&2; return 1; }
    cd_as_owner "$bindir/pg_ctl" -D "$CD_CLUSTER_DIR/data" -l "$CD_CLUSTER_DIR/log" -w start \
        -o "-k $CD_CLUSTER_DIR/sock -c listen_addresses='' -p $port -c fsync=off ${CD_PG_OPTS:-}" \
        >/dev/null || { cat "$CD_CLUSTER_DIR/log" >&2; return 1; }
    CD_CLUSTER_BINDIR=$bindir
    export CD_CLUSTER_DIR CD_CLUSTER_BINDIR
    export PGHOST="$CD_CLUSTER_DIR/sock" PGPORT=$port PGUSER=postgres PGDATABASE=postgres
}

cd_cluster_stop() {
    [ -n "${CD_CLUSTER_DIR:-}" ] && [ -d "$CD_CLUSTER_DIR/data" ] || return 0
    cd_as_owner "$CD_CLUSTER_BINDIR/pg_ctl" -D "$CD_CLUSTER_DIR/data" -m immediate -w stop >/dev/null 2>&1
    rm -rf "$CD_CLUSTER_DIR"
    unset CD_CLUSTER_DIR
}

cd_probe_features() {
    local psql="$CD_CLUSTER_BINDIR/psql -X -At -v ON_ERROR_STOP=1"
    # catalogs list ICU collations (16+: "unicode") even in builds without
    # ICU: try to create one
    CD_HAVE_ICU=0; CD_HAVE_CITEXT=0
    $psql -c "BEGIN; CREATE COLLATION pg_temp.cd_probe (provider = icu, locale = 'und', deterministic = false); ROLLBACK" \
        >/dev/null 2>&1 && CD_HAVE_ICU=1
    [ "$($psql -c "SELECT count(*) FROM pg_available_extensions WHERE name = 'citext'" 2>/dev/null)" = 1 ] \
        && CD_HAVE_CITEXT=1
    CD_SERVER_NUM=$($psql -c "SHOW server_version_num" 2>/dev/null)
    export CD_HAVE_ICU CD_HAVE_CITEXT CD_SERVER_NUM
}
