#!/usr/bin/env bash
# A real nginx in front of the dev Druid Router: TLS from a private CA, basic auth, a read-only user, and a
# second server that answers everything with a 307 to the first from another host name (a leader redirect
# across hosts); a bearer-token server, a TLS client-certificate server, and a forward proxy for http:// URLs;
# beside it a squid (Debian) as the HTTPS proxy (CONNECT). Druid's own druid-basic-security extension is not on
# the Maven Central these machines reach, so this is how the e2e suite proves TLS, auth and proxies against a
# real HTTP stack (many deployments put a gateway there).
#
#   bash dev/nginx/nginx.sh start    install nginx, squid (apt-get) if missing, make the CA/certs/users/token once,
#                                    (re)write the configs, start nginx and squid (or reload them), wait for both
#   bash dev/nginx/nginx.sh stop     stop both (QUIT/shutdown, then TERM/KILL); idempotent
#   bash dev/nginx/nginx.sh status   running or not (exit 1 when either is not)
#   bash dev/nginx/nginx.sh url      the TLS entry point (https://127.0.0.1:28443)
#   bash dev/nginx/nginx.sh clean    stop, then remove the var dir (CA, certs, users, logs; also outside the checkout)
#   bash dev/nginx/nginx.sh env      shell assignments the tests read (URLs, CA file, users, passwords, logs)
#   bash dev/nginx/nginx.sh logs     tail -F the access logs
#
# Environment: DRUID_URL (upstream, default `dev/druid/druid.sh url`), NGINX_DEV_VAR_DIR (default dev/nginx/var,
# or, as root when user nobody cannot traverse the checkout, /var/lib/druid-ingest-dev/nginx-<hash>),
# NGINX_DEV_PORT (28443), NGINX_DEV_REDIRECT_PORT (28444), NGINX_DEV_TOKEN_PORT (28447), NGINX_DEV_MTLS_PORT
# (28448), NGINX_DEV_PROXY_PORT (28449), NGINX_DEV_SQUID_PORT (28450), NGINX and SQUID (the binaries).
# It never touches the system nginx config or service: nginx runs as a plain process with -p/-c on 127.0.0.1.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
DEV_NAME=nginx.sh
# shellcheck source=../lib.sh
source "$HERE/../lib.sh"
# As root the master drops its workers to this user; they read htpasswd and write temp files per request, so the
# var dir must be reachable by it: outside the checkout when the checkout is not (dev/lib.sh).
WORKER_USER=nobody
VAR="${NGINX_DEV_VAR_DIR:-$HERE/var}"
[[ "$VAR" == /* ]] || VAR="$PWD/$VAR"
if [[ -z "${NGINX_DEV_VAR_DIR:-}" && $EUID -eq 0 ]]; then VAR="$(dev_state_dir "$WORKER_USER" "$HERE/var" nginx)"; fi
PORT="${NGINX_DEV_PORT:-28443}"
REDIRECT_PORT="${NGINX_DEV_REDIRECT_PORT:-28444}"
TOKEN_PORT="${NGINX_DEV_TOKEN_PORT:-28447}"
MTLS_PORT="${NGINX_DEV_MTLS_PORT:-28448}"
PROXY_PORT="${NGINX_DEV_PROXY_PORT:-28449}"
SQUID_PORT="${NGINX_DEV_SQUID_PORT:-28450}"
SQUID_DIR="$VAR/squid"
ADMIN_USER=druid_admin
READER_USER=druid_reader
TLS_URL="https://127.0.0.1:$PORT"
REDIRECT_URL="https://localhost:$REDIRECT_PORT"
TOKEN_URL="https://127.0.0.1:$TOKEN_PORT"
MTLS_URL="https://127.0.0.1:$MTLS_PORT"
PROXY_URL="http://127.0.0.1:$PROXY_PORT"
SQUID_URL="http://127.0.0.1:$SQUID_PORT"


nginx_bin() {
  if [ -n "${NGINX:-}" ]; then echo "$NGINX"; return; fi
  command -v nginx 2>/dev/null || { [ -x /usr/sbin/nginx ] && echo /usr/sbin/nginx; } || true
}

squid_bin() {
  if [ -n "${SQUID:-}" ]; then echo "$SQUID"; return; fi
  command -v squid 2>/dev/null || { [ -x /usr/sbin/squid ] && echo /usr/sbin/squid; } || true
}

install_packages() {
  # nginx, squid and openssl from Debian when missing; loud failure when that is impossible. The squid package
  # may start (or try to start) the system squid on :3128: never used, the harness runs its own.
  local missing=()
  [ -n "$(nginx_bin)" ] || missing+=(nginx)
  [ -n "$(squid_bin)" ] || missing+=(squid)
  command -v openssl >/dev/null || missing+=(openssl)
  [ ${#missing[@]} -eq 0 ] && return 0
  log "missing: ${missing[*]}: installing the Debian package(s) with apt-get"
  command -v apt-get >/dev/null || die "${missing[*]} not installed and apt-get is not available: install them yourself"
  local sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  # policy-rc.d may refuse to start the system service: fine, it is never used
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get install -y "${missing[@]}" >"$VAR/apt-get.log" 2>&1 \
    || { $sudo apt-get update >>"$VAR/apt-get.log" 2>&1 && $sudo apt-get install -y "${missing[@]}" >>"$VAR/apt-get.log" 2>&1; } \
    || { tail -n 20 "$VAR/apt-get.log" >&2; die "apt-get install -y ${missing[*]} failed (log: $VAR/apt-get.log)"; }
  [ -n "$(nginx_bin)" ] || die "apt-get installed nginx but no nginx binary is on PATH or in /usr/sbin"
  [ -n "$(squid_bin)" ] || die "apt-get installed squid but no squid binary is on PATH or in /usr/sbin"
  command -v openssl >/dev/null || die "apt-get installed openssl but it is not on PATH"
}

make_pki() {
  # a CA made here, and a server certificate for 127.0.0.1 and localhost signed by it (made once)
  [ -s "$VAR/pki/server.pem" ] && [ -s "$VAR/pki/ca.pem" ] && return 0
  mkdir -p "$VAR/pki"
  local pki="$VAR/pki"
  openssl req -x509 -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:P-256 -sha256 -days 3650 \
    -subj "/CN=druid-ingest dev CA" -keyout "$pki/ca.key" -out "$pki/ca.pem" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
    -addext "subjectKeyIdentifier=hash" 2>/dev/null
  openssl req -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:P-256 -sha256 -subj "/CN=127.0.0.1" \
    -keyout "$pki/server.key" -out "$pki/server.csr" 2>/dev/null
  cat >"$pki/server.ext" <<EOF
basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=serverAuth
subjectAltName=IP:127.0.0.1,DNS:localhost
subjectKeyIdentifier=hash
authorityKeyIdentifier=keyid
EOF
  openssl x509 -req -in "$pki/server.csr" -CA "$pki/ca.pem" -CAkey "$pki/ca.key" -CAcreateserial -sha256 \
    -days 825 -extfile "$pki/server.ext" -out "$pki/server.pem" 2>/dev/null
  chmod 600 "$pki/ca.key" "$pki/server.key"
  log "made a CA ($pki/ca.pem) and a server certificate for 127.0.0.1 and localhost"
}

sign_client() {
  # a client certificate (CN $1) signed by CA $2/$3 into $4.pem / $4.key
  local cn="$1" ca="$2" ca_key="$3" out="$4"
  openssl req -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:P-256 -sha256 -subj "/CN=$cn" \
    -keyout "$out.key" -out "$out.csr" 2>/dev/null
  printf '%s\n' "basicConstraints=CA:FALSE" "keyUsage=critical,digitalSignature" "extendedKeyUsage=clientAuth" \
    "subjectKeyIdentifier=hash" "authorityKeyIdentifier=keyid" >"$out.ext"
  openssl x509 -req -in "$out.csr" -CA "$ca" -CAkey "$ca_key" -CAcreateserial -sha256 -days 825 \
    -extfile "$out.ext" -out "$out.pem" 2>/dev/null
  chmod 600 "$out.key"
}

make_client_pki() {
  # for the mTLS server: a client certificate from the harness's CA, and one from another CA it does not trust
  local pki="$VAR/pki"
  [ -s "$pki/client.pem" ] && [ -s "$pki/other-client.pem" ] && return 0
  sign_client "druid-ingest dev client" "$pki/ca.pem" "$pki/ca.key" "$pki/client"
  openssl req -x509 -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:P-256 -sha256 -days 3650 \
    -subj "/CN=some other CA" -keyout "$pki/other-ca.key" -out "$pki/other-ca.pem" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
  chmod 600 "$pki/other-ca.key"
  sign_client "druid-ingest dev client" "$pki/other-ca.pem" "$pki/other-ca.key" "$pki/other-client"
  log "made a client certificate ($pki/client.pem) and one from another CA ($pki/other-client.pem)"
}

make_users() {
  # passwords generated once (or NGINX_DEV_ADMIN_PASSWORD / NGINX_DEV_READER_PASSWORD); htpasswd holds hashes
  if [ ! -s "$VAR/secrets.env" ]; then
    umask 077
    {
      echo "ADMIN_PASSWORD=${NGINX_DEV_ADMIN_PASSWORD:-$(openssl rand -hex 12)}"
      echo "READER_PASSWORD=${NGINX_DEV_READER_PASSWORD:-$(openssl rand -hex 12)}"
    } >"$VAR/secrets.env"
    umask 022
  fi
  if ! grep -q '^TOKEN=' "$VAR/secrets.env"; then  # var dirs made before the token server get one added
    echo "TOKEN=${NGINX_DEV_TOKEN:-$(openssl rand -hex 24)}" >>"$VAR/secrets.env"
  fi
  # shellcheck disable=SC1091
  . "$VAR/secrets.env"
  {
    printf '%s:%s\n' "$ADMIN_USER" "$(printf '%s' "$ADMIN_PASSWORD" | openssl passwd -apr1 -stdin)"
    printf '%s:%s\n' "$READER_USER" "$(printf '%s' "$READER_PASSWORD" | openssl passwd -apr1 -stdin)"
  } >"$VAR/htpasswd.tmp"
  chmod 644 "$VAR/htpasswd.tmp"  # the worker (nobody) reads it per request; it holds only hashes
  mv "$VAR/htpasswd.tmp" "$VAR/htpasswd"
}

druid_upstream() {
  local url="${DRUID_URL:-$(bash "$ROOT/dev/druid/druid.sh" url)}"
  url="${url#http://}"
  echo "${url%%/*}"
}

write_conf() {
  local upstream
  upstream="$(druid_upstream)"
  local user_line="# workers run as the invoking user"
  [[ $EUID -eq 0 ]] && user_line="user $WORKER_USER $(id -gn "$WORKER_USER");"
  # shellcheck disable=SC1091
  . "$VAR/secrets.env"
  [[ "$TOKEN" =~ ^[A-Za-z0-9._~+/-]+=*$ ]] || die "the token in $VAR/secrets.env is not a bearer token (RFC 6750 b64token)"
  # the config holds the token (the map that checks it): readable by the master only (it reads it as root)
  (umask 077 && sed -e "s#@USER_LINE@#$user_line#" -e "s#@VAR@#$VAR#g" -e "s#@PORT@#$PORT#g" \
      -e "s#@REDIRECT_PORT@#$REDIRECT_PORT#g" -e "s#@TOKEN_PORT@#$TOKEN_PORT#g" -e "s#@MTLS_PORT@#$MTLS_PORT#g" \
      -e "s#@PROXY_PORT@#$PROXY_PORT#g" -e "s#@TOKEN@#$TOKEN#g" -e "s#@UPSTREAM@#$upstream#g" \
      -e "s#@READER@#$READER_USER#g" "$HERE/nginx.conf.in" >"$VAR/nginx.conf.tmp")
  mv "$VAR/nginx.conf.tmp" "$VAR/nginx.conf"
}

write_squid_conf() {
  mkdir -p "$SQUID_DIR"
  local user_line="# squid runs as the invoking user"
  if [[ $EUID -eq 0 ]]; then
    # as root squid drops to this user after binding: it writes its logs and pid file here
    user_line="cache_effective_user $WORKER_USER"
    chown "$WORKER_USER" "$SQUID_DIR"
  fi
  sed -e "s#@SQUID_USER_LINE@#$user_line#" -e "s#@SQUID_DIR@#$SQUID_DIR#g" -e "s#@SQUID_PORT@#$SQUID_PORT#g" \
      "$HERE/squid.conf.in" >"$SQUID_DIR/squid.conf.tmp"
  mv "$SQUID_DIR/squid.conf.tmp" "$SQUID_DIR/squid.conf"
}

squid_alive() {
  [ -s "$SQUID_DIR/squid.pid" ] && kill -0 "$(cat "$SQUID_DIR/squid.pid")" 2>/dev/null
}
squid_listens() { squid_alive && port_open "$SQUID_PORT"; }

start_squid() {
  local bin
  bin="$(squid_bin)"
  write_squid_conf
  "$bin" -k parse -f "$SQUID_DIR/squid.conf" >"$SQUID_DIR/parse.log" 2>&1 \
    || { tail -n 20 "$SQUID_DIR/parse.log" >&2; die "squid rejected $SQUID_DIR/squid.conf"; }
  if squid_alive; then
    "$bin" -f "$SQUID_DIR/squid.conf" -k reconfigure
    log "reconfigured the running squid (pid $(cat "$SQUID_DIR/squid.pid"))"
  else
    port_open "$SQUID_PORT" && die "127.0.0.1:$SQUID_PORT is taken by something else: set NGINX_DEV_SQUID_PORT"
    "$bin" -f "$SQUID_DIR/squid.conf" || die "squid did not start (see $SQUID_DIR/cache.log)"
  fi
  if poll_until $((SECONDS + 20)) 0.3 squid_listens; then
    log "squid (pid $(cat "$SQUID_DIR/squid.pid")): $SQUID_URL (CONNECT to 127.0.0.1 only)"
    return 0
  fi
  tail -n 20 "$SQUID_DIR/cache.log" >&2 || true
  die "squid does not listen on 127.0.0.1:$SQUID_PORT within 20 s (see $SQUID_DIR/cache.log)"
}

stop_squid() {
  squid_alive || { rm -f "$SQUID_DIR/squid.pid"; log "squid not running"; return 0; }
  local pid
  pid="$(cat "$SQUID_DIR/squid.pid")"
  "$(squid_bin)" -f "$SQUID_DIR/squid.conf" -k shutdown 2>/dev/null || true  # its own graceful stop first
  stop_pid "$pid" squid TERM 5
}

pid_alive() {
  [ -s "$VAR/nginx.pid" ] && kill -0 "$(cat "$VAR/nginx.pid")" 2>/dev/null
}

# Druid's /status/health through nginx's TLS server, checked against the harness's CA
answers_through() {
  python3 - "$TLS_URL/status/health" "$VAR/pki/ca.pem" <<'EOF' 2>/dev/null
import ssl, sys, urllib.request
ctx = ssl.create_default_context(cafile=sys.argv[2])
sys.exit(urllib.request.urlopen(sys.argv[1], timeout=3, context=ctx).read().strip() != b"true")
EOF
}

wait_ready() {
  poll_until $((SECONDS + 20)) 0.3 answers_through && return 0
  tail -n 20 "$VAR/logs/error.log" >&2 || true
  die "nginx does not answer $TLS_URL/status/health through to Druid within 20 s (is Druid up at $(druid_upstream)?)"
}

start() {
  local name note
  for name in NGINX SQUID; do  # a binary named explicitly must be one: no silent fallback to another
    if [ -n "${!name:-}" ] && [ ! -x "${!name}" ]; then die "$name=${!name} is not an executable file"; fi
  done
  note="$(dev_state_note "nginx's worker" "$WORKER_USER" "$HERE/var" "$VAR")"
  if [[ -n "$note" ]]; then log "$note"; dev_make_outside "$VAR" root; fi
  mkdir -p "$VAR/logs" "$VAR/tmp"
  chmod 755 "$VAR" "$VAR/logs" "$VAR/tmp"
  if [[ $EUID -eq 0 && -n "$(dev_blocked_for "$WORKER_USER" "$VAR")" ]]; then
    die "nginx's workers (user $WORKER_USER) cannot traverse $(dev_blocked_for "$WORKER_USER" "$VAR") to reach $VAR (htpasswd, temp files): set NGINX_DEV_VAR_DIR to a folder they can reach"
  fi
  install_packages
  make_pki
  make_client_pki
  make_users
  write_conf
  local bin
  bin="$(nginx_bin)"
  "$bin" -t -q -p "$VAR" -c "$VAR/nginx.conf" || die "nginx rejected $VAR/nginx.conf"
  if pid_alive; then
    "$bin" -p "$VAR" -c "$VAR/nginx.conf" -s reload
    log "reloaded the running nginx (pid $(cat "$VAR/nginx.pid"))"
  else
    "$bin" -p "$VAR" -c "$VAR/nginx.conf" || die "nginx did not start (see $VAR/logs/error.log)"
    log "started nginx (pid $(cat "$VAR/nginx.pid")): $TLS_URL (auth, TLS), $REDIRECT_URL (307 to it), $TOKEN_URL (bearer token), $MTLS_URL (client certificates), $PROXY_URL (http:// proxy)"
  fi
  wait_ready
  start_squid
}

stop() {
  stop_squid
  stop_nginx
}

stop_nginx() {
  pid_alive || { rm -f "$VAR/nginx.pid"; log "nginx not running"; return 0; }
  stop_pid "$(cat "$VAR/nginx.pid")" nginx QUIT 5  # QUIT: nginx's graceful shutdown
}

print_env() {
  [ -s "$VAR/secrets.env" ] || die "no $VAR/secrets.env: run 'bash dev/nginx/nginx.sh start' first"
  # shellcheck disable=SC1091
  . "$VAR/secrets.env"
  cat <<EOF
NGINX_TLS_URL=$TLS_URL
NGINX_REDIRECT_URL=$REDIRECT_URL
NGINX_CA_BUNDLE=$VAR/pki/ca.pem
NGINX_ADMIN_USER=$ADMIN_USER
NGINX_ADMIN_PASSWORD=$ADMIN_PASSWORD
NGINX_READER_USER=$READER_USER
NGINX_READER_PASSWORD=$READER_PASSWORD
NGINX_ACCESS_LOG=$VAR/logs/access.log
NGINX_REDIRECT_LOG=$VAR/logs/redirect.log
NGINX_ERROR_LOG=$VAR/logs/error.log
NGINX_TOKEN_URL=$TOKEN_URL
NGINX_TOKEN=$TOKEN
NGINX_TOKEN_LOG=$VAR/logs/token.log
NGINX_MTLS_URL=$MTLS_URL
NGINX_CLIENT_CERT=$VAR/pki/client.pem
NGINX_CLIENT_KEY=$VAR/pki/client.key
NGINX_OTHER_CLIENT_CERT=$VAR/pki/other-client.pem
NGINX_OTHER_CLIENT_KEY=$VAR/pki/other-client.key
NGINX_MTLS_LOG=$VAR/logs/mtls.log
NGINX_UPSTREAM_URL=http://$(druid_upstream)
NGINX_PROXY_URL=$PROXY_URL
NGINX_PROXY_LOG=$VAR/logs/proxy.log
SQUID_URL=$SQUID_URL
SQUID_ACCESS_LOG=$SQUID_DIR/access.log
EOF
}

status() {
  local rc=0
  if pid_alive; then echo "nginx running (pid $(cat "$VAR/nginx.pid")): $TLS_URL"; else echo "nginx not running"; rc=1; fi
  if squid_alive; then echo "squid running (pid $(cat "$SQUID_DIR/squid.pid")): $SQUID_URL"; else echo "squid not running"; rc=1; fi
  return "$rc"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  clean) stop; dev_remove_state "$VAR" ;;
  status) status ;;
  url) echo "$TLS_URL" ;;
  env) print_env ;;
  logs) exec tail -F "$VAR/logs/access.log" "$VAR/logs/redirect.log" "$VAR/logs/token.log" "$VAR/logs/mtls.log" \
          "$VAR/logs/proxy.log" "$SQUID_DIR/access.log" ;;
  *) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
