#!/bin/sh
# setup.sh - prepare a bare Debian 12 to build and test threadlens.
#
#   sh scripts/setup.sh && make demo      (the README's first command)
#
# A minimal Debian (debootstrap --variant=minbase) has no make, so `make`
# cannot install its own dependencies there.  This script needs only the
# base system (sh, dpkg, apt-get): it installs every package that
# scripts/deps.sh lists for `make check` (compilers, make, the libraries,
# python3), which covers `make demo` too.  Run it as root; as another user
# it prints the apt-get line to run and exits 1.  Safe to run again: it
# installs only what is missing.
set -eu
cd "$(dirname "$0")/.."
exec sh scripts/deps.sh check
