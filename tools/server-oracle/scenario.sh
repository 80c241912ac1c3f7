#!/bin/bash
# Play one scenario on a real Empire 4.4.1 server (see README.md next to this file).
#
#   scenario.sh DIR
#
# DIR/setup      deity commands that build the world
# DIR/setupN     commands country N types before the game starts (missions...)
# DIR/cmds       what country 1 types (the first line shifts the seed: __cmd added -S 0 0)
# DIR/size       "WORLD_X WORLD_Y" (default 32 16)
# DIR/names      "cnum name" per country (players log in by name)
#
# Writes DIR/initial.xdump, DIR/out.txt (the player's client output),
# DIR/final.xdump and DIR/tel.txt (the telegrams the command sent).
set -euo pipefail
E=${EMPIRE_PREFIX:-$(cd "$(dirname "$0")/../.." && pwd)/build/empire}
D=$(readlink -f "$1")
read -r WX WY < <(cat "$D/size" 2>/dev/null || echo "32 16")
OUT=$D/run
rm -rf "$OUT"
mkdir -p "$OUT/data"
PORT=$((20000 + RANDOM % 20000))
"$E/sbin/pconfig" >"$OUT/econfig"
sed -i -e "s|^data .*|data \"$OUT/data\"|" -e "s|^port .*|port \"$PORT\"|" \
    -e 's|^listen_addr .*|listen_addr "127.0.0.1"|' \
    -e "s|^WORLD_X .*|WORLD_X $WX|" -e "s|^WORLD_Y .*|WORLD_Y $WY|" \
    -e 's|^GODNEWS .*|GODNEWS 0|' -e 's|^keep_journal .*|keep_journal 2|' \
    -e 's|^running_test_suite .*|running_test_suite 1|' "$OUT/econfig"
touch "$OUT/schedule"
"$E/sbin/files" -e "$OUT/econfig" -f >/dev/null
PID=
start() {
    "$E/sbin/emp_server" -e "$OUT/econfig" -R 1 -s -E crash-dump
    for _ in $(seq 50); do [ -s "$OUT/data/server.pid" ] && break; sleep 0.1; done
    PID=$(cat "$OUT/data/server.pid")
    sleep 0.3
}
stop() {
    kill "$PID"
    for _ in $(seq 50); do kill -0 "$PID" 2>/dev/null || break; sleep 0.1; done
    rm -f "$OUT/data/server.pid"
    PID=
}
trap '[ -n "$PID" ] && kill "$PID" 2>/dev/null || true' EXIT
client() { grep -v '^|' | "$E/bin/empire" -s "127.0.0.1:$PORT" "$1" "$2" 2>&1 || true; }
# A country logs in by name, its password its name (DIR/names: "cnum name" lines).
name() { awk -v n="$1" '$1 == n { print $2 }' "$D/names" 2>/dev/null | grep . || echo "$1"; }
start
client POGO peter <"$D/setup" >"$D/setup.out"
for f in "$D"/setup[0-9]*; do
    [ -f "$f" ] || continue
    n=${f##*/setup}
    client "$(name "$n")" "$(name "$n")" <"$f" >>"$D/setup.out"
done
echo 'edit c * ?tgms>0 t 0' | client POGO peter >/dev/null
stop
"$E/sbin/empdump" -e "$OUT/econfig" -x >"$D/initial.xdump"
for f in "$OUT"/data/tel/*; do : >"$f"; done
start
client "$(name 1)" "$(name 1)" <"$D/cmds" >"$D/out.txt"
stop
"$E/sbin/empdump" -e "$OUT/econfig" -x >"$D/final.xdump"
for f in "$OUT"/data/tel/tel*; do
    [ -s "$f" ] && { echo "### ${f##*/}"; tr -c '[:print:]\n' '?' <"$f"; }
done >"$D/tel.txt" || true
