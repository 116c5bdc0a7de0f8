#!/bin/sh
# Build kpls with MPI (build tag mpi): the kernel matrix's products spread
# over the ranks of mpirun (internal/mpi, kernelop.NewDistributed).
#
# Usage: scripts/mpi-build.sh [outdir]      (default outdir: ./bin)
#        mpirun -np 2 OUTDIR/kpls fit|select ...   (same flags as kpls)
#
# Installs Debian's Open MPI (libopenmpi-dev, openmpi-bin) with apt-get when
# it is missing and the script runs as root (or with password-less sudo);
# otherwise it must already be installed. Run from anywhere inside the
# module. CI runs this script, then the 2- and 3-rank tests.
set -eu

out=${1:-bin}
cd "$(dirname "$0")/.."
mkdir -p "$out"
out=$(cd "$out" && pwd)

# cgo finds Open MPI through pkg-config (ompi-c); mpirun launches the ranks.
if ! pkg-config --exists ompi-c 2>/dev/null || ! command -v mpirun >/dev/null; then
	sudo=
	if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
		sudo="sudo -n"
	fi
	if { [ "$(id -u)" = 0 ] || [ -n "$sudo" ]; } && command -v apt-get >/dev/null; then
		$sudo apt-get update
		$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libopenmpi-dev openmpi-bin pkg-config
	else
		echo "mpi-build: Open MPI is missing; install it (apt-get install libopenmpi-dev openmpi-bin pkg-config)" >&2
		exit 1
	fi
fi

export CGO_ENABLED=1
go build -tags mpi -o "$out/kpls" ./cmd/kpls
echo "mpi-build: wrote $out/kpls (run it as: mpirun -np 2 $out/kpls fit --data F.csv ...)"
