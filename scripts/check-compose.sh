#!/usr/bin/env bash
# Validates docker-compose.yml without a Docker engine: the compose tool parses, interpolates and
# schema-checks the file (`config`), then a few rules of our own are checked on its normalised
# output. Uses the compose v2 plugin (`docker compose`) when present, else the standalone
# `docker-compose` (Debian: apt-get install docker-compose). Exits 0 with SKIPPED when neither exists
# (pass --require to fail instead). CHECK_COMPOSE_FILE names another file (the test uses it).
set -euo pipefail
cd "$(dirname "$0")/.."
file="${CHECK_COMPOSE_FILE:-docker-compose.yml}"

if docker compose version >/dev/null 2>&1; then
  compose=(docker compose)
elif command -v docker-compose >/dev/null 2>&1; then
  compose=(docker-compose)
else
  if [ "${1:-}" = "--require" ]; then echo "check-compose: no compose tool found" >&2; exit 1; fi
  echo "check-compose: SKIPPED (neither 'docker compose' nor 'docker-compose' is installed)"
  exit 0
fi
echo "check-compose: using $("${compose[@]}" version 2>/dev/null | head -n1)"

# Placeholders for the variables the file requires; nothing here is deployed.
export ADMIN_TOKEN=check-compose-admin-token PUBLIC_BASE_URL=https://media.example.com \
  POSTGRES_PASSWORD=check-compose-pg REDIS_PASSWORD=check-compose-redis PROVIDER_CONFIG=/config/channels.json
# Variables of the caller's shell must not change the outcome.
unset STORAGE_DRIVER S3_BUCKET S3_ENDPOINT GATEWAY_PORT || true

out="$(mktemp)"
trap 'rm -f "$out"' EXIT
"${compose[@]}" -f "$file" config >"$out"

# Required settings are enforced by interpolation: without ADMIN_TOKEN the file must be refused.
if (unset ADMIN_TOKEN; "${compose[@]}" -f "$file" config -q) >/dev/null 2>&1; then
  echo "check-compose: the file was accepted without ADMIN_TOKEN" >&2
  exit 1
fi

# So are the secrets and the channel file.
for v in POSTGRES_PASSWORD REDIS_PASSWORD PROVIDER_CONFIG; do
  if (unset "$v"; "${compose[@]}" -f "$file" config -q) >/dev/null 2>&1; then
    echo "check-compose: the file was accepted without $v" >&2
    exit 1
  fi
done

# The S3 alternative interpolates too.
STORAGE_DRIVER=s3 S3_BUCKET=mediagen-files S3_ENDPOINT=https://s3.example.com S3_FORCE_PATH_STYLE=true \
  "${compose[@]}" -f "$file" config -q

if ! python3 -c 'import yaml' 2>/dev/null; then
  echo "check-compose: OK (schema and interpolation; our own rules skipped: python3-yaml is missing)"
  exit 0
fi
python3 - "$out" <<'PY'
import sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
services = doc["services"]
problems = []
for name in ["postgres", "redis", "migrate", "gateway", "worker", "provider-sim"]:
    if name not in services:
        problems.append(f"service {name} is missing")
worker = services.get("worker", {})
# `--scale worker=N` needs replicas that do not collide on host ports or container names.
if worker.get("ports"):
    problems.append("worker publishes host ports; it could not be scaled")
if worker.get("container_name"):
    problems.append("worker has a container_name; it could not be scaled")
for name in ["postgres", "redis", "gateway", "worker", "provider-sim"]:
    hc = services.get(name, {}).get("healthcheck")
    if not hc or hc.get("disable"):
        problems.append(f"{name} has no healthcheck")
for name in ["gateway", "worker"]:
    deps = services.get(name, {}).get("depends_on", {})
    if deps.get("migrate", {}).get("condition") != "service_completed_successfully":
        problems.append(f"{name} does not wait for the migration")
    env = services.get(name, {}).get("environment", {})
    if env.get("NODE_ENV") != "production":
        problems.append(f"{name} does not run with NODE_ENV=production")
if services.get("migrate", {}).get("restart") not in ("no", None):
    problems.append("migrate must be one-shot (restart: no)")
redis_cmd = " ".join(map(str, services.get("redis", {}).get("command", [])))
if "--appendonly yes" not in redis_cmd:
    problems.append("redis must persist (appendonly yes): the queue lives there")
for vol in ["pgdata", "redisdata", "files"]:
    if vol not in (doc.get("volumes") or {}):
        problems.append(f"volume {vol} is missing")
if problems:
    print("check-compose: " + "\ncheck-compose: ".join(problems), file=sys.stderr)
    sys.exit(1)
print(f"check-compose: OK ({len(services)} services: {', '.join(sorted(services))})")
PY
