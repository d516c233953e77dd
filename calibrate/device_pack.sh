#!/bin/sh
# calibrate/device_pack.sh - on the build machine, before a device call: build
# bin/podplan and bin/podplan-calibrate, and fill lib/ (git-ignored, carried
# with the call) with what the GPU machine lacks (see ../shared/DEVICE.md: it
# has libsqlite3.so.0 but neither cJSON nor GSL, nor any of their headers):
#   lib/libcjson.so.1 lib/libgsl.so.27 lib/libgslcblas.so.0   the binaries' run-time
#       libraries (found through their rpath $ORIGIN/../lib, or LD_LIBRARY_PATH)
#   lib/include/{cjson,gsl,sqlite3.h,sqlite3ext.h}            for building there when the
#       carried binaries do not start (calibrate/device_campaign.sh falls back to it)
# Regular files only (a carried link travels as a link). Carry: bin, lib.
set -eu
make -j8 >/dev/null
[ -x bin/podplan-calibrate ] || { echo "device_pack: bin/podplan-calibrate was not built (nvcc, nccl.h?)" >&2; exit 1; }
rm -rf lib
mkdir -p lib/include
for so in libcjson.so.1 libgsl.so.27 libgslcblas.so.0; do
	f=$(ldd bin/podplan-calibrate | awk -v n="$so" '$1 == n { print $3 }')
	[ -n "$f" ] || { echo "device_pack: bin/podplan-calibrate does not load $so" >&2; exit 1; }
	cp -L "$f" "lib/$so"
done
cp -RL /usr/include/cjson /usr/include/gsl lib/include/
cp -L /usr/include/sqlite3.h /usr/include/sqlite3ext.h lib/include/
du -sh bin lib | tr '\n' ' '
echo "(carry: bin, lib)"
