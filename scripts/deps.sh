#!/bin/sh
# deps.sh - make sure the Debian packages threadlens needs are installed.
#
# Run by `make` before building.  As root it installs what is missing with
# apt-get; otherwise it prints the exact apt-get line and fails, so that a
# build never half-works on a machine without the libraries.
#
# Usage: scripts/deps.sh [build|check|bench]
set -eu

want="build"
[ $# -gt 0 ] && want="$1"

pkgs="gcc make pkg-config libtraceevent-dev libtracefs-dev libzstd-dev libelf-dev libdw-dev libsqlite3-dev clang libbpf-dev bpftool"
case "$want" in
check) pkgs="$pkgs clang libclang-rt-14-dev clang-format python3 g++ protobuf-compiler chromium" ;;
bench) pkgs="$pkgs clang libclang-rt-14-dev python3 linux-perf hyperfine sqlite3" ;;
esac

missing=""
for p in $pkgs; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "threadlens: missing Debian packages:$missing" >&2
	echo "run: sudo apt-get install -y$missing" >&2
	exit 1
fi
echo "threadlens: installing missing Debian packages:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
if ! apt-get install -y --no-install-recommends $missing >/dev/null; then
	apt-get update >/dev/null
	apt-get install -y --no-install-recommends $missing >/dev/null
fi
