#!/bin/sh
# Runs a command with OpenBLAS in place of Debian's reference BLAS, for that process only: Debian's torch
# calls whatever libblas.so.3 it finds, and the reference one makes the encoder's training 3-5x slower.
# The package is downloaded and unpacked under build/openblas/ (apt-get download, no installation), so
# nothing on the machine changes for other programs.
#   sh model/openblas.sh /usr/bin/python3 model/train_encoder.py ...
set -e
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="$root/build/openblas"
lib="$dir/root/usr/lib/$(gcc -print-multiarch)/openblas-openmp"
if [ ! -f "$lib/libblas.so.3" ]; then
  mkdir -p "$dir"
  (cd "$dir" && apt-get download libopenblas0-openmp && dpkg-deb -x libopenblas0-openmp_*.deb root)
fi
LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$@"
