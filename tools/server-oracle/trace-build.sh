#!/bin/bash
# Build a 4.4.1 server that logs its random draws (see trace.c and draws.py)
# into build/empire-trace, next to the ordinary build of README.md step 1.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SRC=$ROOT/build/empire-trace-src
rm -rf "$SRC" && mkdir -p "$SRC"
tar xzf "$ROOT/../shared/vendor/empire/empire-4.4.1.tar.gz" -C "$SRC" --strip-components=1
cd "$SRC"
./configure --prefix="$ROOT/build/empire-trace" >/dev/null
make -j2 >/dev/null
gcc -c -O2 -o trace.o "$HERE/trace.c"
rm -f src/server/emp_server
WRAP=-Wl,--wrap=chance,--wrap=roll0,--wrap=roll,--wrap=roundavg,--wrap=pct_chance,--wrap=seed_prng
make src/server/emp_server LDFLAGS="-fstack-protector-strong -pthread $WRAP $SRC/trace.o" >/dev/null
make install >/dev/null
echo "built $ROOT/build/empire-trace"
