#!/bin/sh
# Build kpls against OpenBLAS (build tag openblas) and test the blas seam.
#
# Usage: scripts/openblas-build.sh [outdir]      (default outdir: ./bin)
#
# Installs Debian's libopenblas-dev with apt-get when the library is missing
# and the script runs as root (or with password-less sudo); otherwise it
# must already be installed.
# Run from anywhere inside the module. CI runs this script natively;
# Dockerfile.openblas runs it in its builder stage.
set -eu

out=${1:-bin}
cd "$(dirname "$0")/.."
mkdir -p "$out"
out=$(cd "$out" && pwd)

# The linker needs the unversioned libopenblas.so from libopenblas-dev
# (gonum's netlib binding carries its own cblas.h).
have_openblas() {
	for f in /usr/lib/*/libopenblas.so /usr/lib/libopenblas.so /usr/local/lib/libopenblas.so; do
		[ -e "$f" ] && return 0
	done
	return 1
}

if ! have_openblas; then
	sudo=
	if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
		sudo="sudo -n"
	fi
	if { [ "$(id -u)" = 0 ] || [ -n "$sudo" ]; } && command -v apt-get >/dev/null; then
		$sudo apt-get update
		$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libopenblas-dev
	else
		echo "openblas-build: libopenblas-dev is missing; install it (apt-get install libopenblas-dev)" >&2
		exit 1
	fi
fi

export CGO_ENABLED=1
export CGO_LDFLAGS="${CGO_LDFLAGS:+$CGO_LDFLAGS }-lopenblas"

go build -tags openblas ./...
if [ -d cmd/kpls ] && ls cmd/kpls/*.go >/dev/null 2>&1; then
	go build -tags openblas -o "$out/kpls" ./cmd/kpls
	echo "openblas-build: wrote $out/kpls"
fi
# One OpenBLAS thread per call: the tests run packages in parallel.
OPENBLAS_NUM_THREADS=1 go test -tags openblas ./blas/...
