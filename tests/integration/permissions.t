#!/bin/sh
# A run's folder and the sockets in it (QMP, the guest agents, the fabric
# manager's own monitor, agent port and control socket) are the user's
# alone whatever the umask: under `umask 002` they followed it, and any
# member of the user's group could drive QEMU, the guests and the fabric
# manager.
. "$(dirname "$0")/lib.sh"
need_image
plan 5

# An empty --out folder the group may write: the run makes it its own.
out=$outroot/run
mkdir -m 775 "$out"
(umask 002; exec "$cxlbed" run --boot-only --out "$out" "$top/tests/data/pool-fm.scn") \
	>"$out.log" 2>&1 &
runpid=$!
# Every socket exists once the fabric manager is up (its control socket
# last); its start events keep the run going a while after.
i=0
while ! grep -q "fabric manager up" "$out.log" 2>/dev/null; do
	i=$((i + 1))
	[ $i -gt 3000 ] && break
	kill -0 $runpid 2>/dev/null || break
	sleep 0.1
done
find "$out" -type s -exec stat -c '%a %n' {} + >"$outroot/sockets" 2>/dev/null
folder_mode=$(stat -c %a "$out")
kill -INT $runpid
wait $runpid
rc=$?
diag <"$outroot/sockets"

check "the run folder is 700 under umask 002 (got $folder_mode)" [ "$folder_mode" = 700 ]
nsock=$(wc -l <"$outroot/sockets")
named() { for s in qmp-h0 agent-h0 fm-qmp-h0 fm-agent-h0 qmp-h1 agent-h1 fm-qmp-h1 fm-agent-h1 fm; do
	grep -q "/$s.sock\$" "$outroot/sockets" || { echo "no $s.sock" | diag; return 1; }; done; }
check "every socket was there while the run went on ($nsock: QMP, agent, the FM's three kinds)" named
not_private=$(grep -v '^600 ' "$outroot/sockets" | paste -sd' ' -)
check "every socket is 600 under umask 002${not_private:+ (not: $not_private)}" \
	[ -s "$outroot/sockets" -a -z "$not_private" ]
check "the run ended on SIGINT (exit $rc)" [ $rc -eq 130 ]
check "no QEMU left behind" no_qemu_left "$out"
finish
