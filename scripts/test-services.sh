#!/usr/bin/env bash
# Start the PostgreSQL and Redis servers that the store tests use and print the line to export:
#
#     eval "$(bash scripts/test-services.sh)"    # sets TOOLPEN_TEST_STORE_URLS
#
# Installs Debian's postgresql and redis-server if missing (needs root), then runs private
# servers on 127.0.0.1 only, with their data under $TOOLPEN_SERVICES_DIR (/tmp/toolpen-services):
# PostgreSQL on port $TOOLPEN_PG_PORT (55432), user, password and database "toolpen", fsync off
# (test data); Redis on $TOOLPEN_REDIS_PORT (56379), no persistence. Idempotent: a server that
# already answers is left alone. Progress goes to stderr; stdout is only the export line.
set -euo pipefail

dir=${TOOLPEN_SERVICES_DIR:-/tmp/toolpen-services}
pg_port=${TOOLPEN_PG_PORT:-55432}
redis_port=${TOOLPEN_REDIS_PORT:-56379}
pg_url="postgresql://toolpen:toolpen@127.0.0.1:$pg_port/toolpen"
redis_url="redis://127.0.0.1:$redis_port/0"

log() { echo "test-services: $*" >&2; }

# Run a command as the given system user when we are root (PostgreSQL refuses to run as root).
as_user() {
    local user=$1
    shift
    if [[ $(id -u) == 0 ]]; then runuser -u "$user" -- "$@"; else "$@"; fi
}

install_missing() {
    local missing=()
    compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || missing+=(postgresql)
    command -v redis-server >/dev/null || missing+=(redis-server)
    [[ -x /usr/sbin/pgbouncer ]] || missing+=(pgbouncer)  # tests/runtime/store/test_pgbouncer.py starts its own
    if ((${#missing[@]})); then
        log "installing ${missing[*]}"
        apt-get update -qq >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2
    fi
}

start_postgres() {
    local bin data owner
    bin=$(find /usr/lib/postgresql -maxdepth 2 -name bin | sort -V | tail -n 1)
    data=$dir/pg
    if "$bin/pg_isready" -q -h 127.0.0.1 -p "$pg_port"; then
        log "PostgreSQL already answers on 127.0.0.1:$pg_port"
        return
    fi
    owner=$([[ $(id -u) == 0 ]] && echo postgres || id -un)
    if [[ ! -s $data/PG_VERSION ]]; then
        log "creating a PostgreSQL cluster in $data"
        install -d -o "$owner" -m 700 "$data"
        printf 'toolpen\n' | install -o "$owner" -m 600 /dev/stdin "$dir/pg.pw"
        as_user "$owner" "$bin/initdb" -D "$data" -U toolpen --pwfile="$dir/pg.pw" -E UTF8 \
            --auth-local=trust --auth-host=scram-sha-256 --no-sync >&2
        rm -f "$dir/pg.pw"
    fi
    log "starting PostgreSQL on 127.0.0.1:$pg_port"
    # a postmaster.pid left by a killed server is ignored unless its pid is a live process of ours
    as_user "$owner" "$bin/pg_ctl" -D "$data" -l "$data/server.log" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -p $pg_port -k $data -c fsync=off -c full_page_writes=off" \
        start >&2
    if [[ -z $(as_user "$owner" "$bin/psql" -h "$data" -p "$pg_port" -U toolpen -d postgres -tAc \
        "SELECT 1 FROM pg_database WHERE datname = 'toolpen'") ]]; then
        as_user "$owner" "$bin/createdb" -h "$data" -p "$pg_port" -U toolpen toolpen
    fi
}

start_redis() {
    if redis-cli -h 127.0.0.1 -p "$redis_port" ping >/dev/null 2>&1; then
        log "Redis already answers on 127.0.0.1:$redis_port"
        return
    fi
    log "starting Redis on 127.0.0.1:$redis_port"
    redis-server --bind 127.0.0.1 --port "$redis_port" --daemonize yes --dir "$dir" \
        --save "" --appendonly no --logfile "$dir/redis.log" --pidfile "$dir/redis.pid" >&2
    for _ in $(seq 100); do
        redis-cli -h 127.0.0.1 -p "$redis_port" ping >/dev/null 2>&1 && return
        sleep 0.1
    done
    log "Redis did not start; see $dir/redis.log"
    return 1
}

install_missing
mkdir -p "$dir"
chmod 755 "$dir"
start_postgres
start_redis
echo "export TOOLPEN_TEST_STORE_URLS='$pg_url $redis_url'"
