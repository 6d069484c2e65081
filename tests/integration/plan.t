#!/bin/sh
# cxlbed plan: every shipped topology plans (exit 0) and shows each device's
# cxl-type3 with its serial; every topology in tests/data/bad exits 2 with
# FILE:LINE: on stderr, LINE being the one marked "<-- error" (timing-*
# files with --timing), and the message printable UTF-8 whatever the file
# holds; every bad scenario makes `cxlbed run` and `cxlbed plan` exit 2
# the same way before anything starts. Inputs that are not files, too large, named in bytes
# that are not UTF-8, or very large topologies (53,000 hosts: linear
# validation) are checked too.
cd "$(dirname "$0")/../.." || exit 1
CXLBED=./cxlbed
if [ ! -x "$CXLBED" ]; then
	echo "1..0 # SKIP ./cxlbed not built"
	exit 0
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

good=$(ls topologies/*.topo)
bad=$(ls tests/data/bad/*.topo)
badscn=$(ls tests/data/bad/*.scn)
n=0
for f in $good; do n=$((n + 2)); done
for f in $bad $badscn $badscn; do n=$((n + 1)); done
echo "1..$((n + 2 + 5))"

i=0
say() { # ok|not ok, description
	i=$((i + 1))
	echo "$1 $i - $2"
}

for f in $good; do
	if $CXLBED plan --rundir /run/cxlbed-test "$f" >"$tmp/out" 2>"$tmp/err"; then
		say ok "plan $f exits 0"
	else
		say "not ok" "plan $f exits 0"
		sed 's/^/# /' "$tmp/err"
	fi
	# Each device line in the header ("#   path sn=0x...") must have its
	# cxl-type3 with the same id and serial in a command line.
	missing=
	for dev in $(sed -n 's|^#   \([^ ]*\) sn=\(0x[0-9a-f]*\) .*|\1:\2|p' "$tmp/out"); do
		id=${dev%%:*}; id=${id##*/}; sn=${dev#*:}
		grep -q "cxl-type3,.*,id=$id,sn=$sn,cdat=/run/cxlbed-test/cdat-$id.bin" \
			"$tmp/out" || missing="$missing $id"
	done
	ndev=$(grep -c 'cxl-type3,' "$tmp/out")
	nld=$(grep -c '^#   LD port ' "$tmp/out")
	if [ -z "$missing" ] && [ "$ndev" -eq 0 ] && [ "$nld" -gt 0 ]; then
		# a lending topology may boot with nothing bound (docs/pooling.md)
		say ok "plan $f: no device at boot, $nld LD port(s) for the fabric manager"
	elif [ -z "$missing" ] && [ "$ndev" -gt 0 ]; then
		say ok "plan $f: $ndev cxl-type3 device(s) with serial and CDAT"
	else
		say "not ok" "plan $f: devices with serial and CDAT (missing:$missing)"
	fi
done

# Exit 2, stderr names FILE:LINE, stdout empty, and stderr is printable
# UTF-8 (no control bytes from the file reach the terminal).
exits_2_at() { # FILE LINE RC
	[ "$3" -eq 2 ] && grep -q "^$1:$2: " "$tmp/err" && [ ! -s "$tmp/out" ] &&
		iconv -f UTF-8 -t UTF-8 "$tmp/err" >/dev/null 2>&1 &&
		! tr -d '\n' <"$tmp/err" | LC_ALL=C grep -q '[[:cntrl:]]'
}
refused() { # VERB FILE
	line=$(grep -an '<-- error' "$2" | head -1 | cut -d: -f1)
	$CXLBED $1 "$2" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if exits_2_at "$2" "$line" $rc; then
		say ok "$1 $2 exits 2 with $2:$line:"
	else
		say "not ok" "$1 $2 exits 2 with $2:$line: (got $rc)"
		sed 's/^/# /' "$tmp/err" | cat -v
	fi
}
for f in $bad $badscn; do
	case $f in
	*.scn) verb=run ;;		# refused before anything starts
	*/timing-*) verb="plan --timing" ;;	# the default; said for the reader
	*) verb=plan ;;
	esac
	refused "$verb" "$f"
done
# plan checks a scenario as run does: the same refusal at the same line
for f in $badscn; do
	refused plan "$f"
done

# Not files: a FIFO would block, then be read forever, as /dev/zero was.
mkfifo "$tmp/fifo.topo"
timeout 20 $CXLBED plan "$tmp/fifo.topo" >"$tmp/out" 2>"$tmp/err"
rc=$?
exits_2_at "$tmp/fifo.topo" 0 $rc && grep -q 'is a FIFO' "$tmp/err"
ok_if() { if [ $? -eq 0 ]; then say ok "$1"; else say "not ok" "$1 (got $rc)"; sed 's/^/# /' "$tmp/err"; fi; }
ok_if "plan FIFO exits 2 at once: not a file"
timeout 20 $CXLBED plan /dev/zero >"$tmp/out" 2>"$tmp/err"
rc=$?
exits_2_at /dev/zero 0 $rc && grep -q 'is a character device' "$tmp/err"
ok_if "plan /dev/zero exits 2 at once: not a file"
# Past the input cap (4 MiB): refused before it is parsed.
head -c 4194305 /dev/zero | tr '\0' '#' >"$tmp/big.topo"
$CXLBED plan "$tmp/big.topo" >"$tmp/out" 2>"$tmp/err"
rc=$?
exits_2_at "$tmp/big.topo" 0 $rc && grep -q 'larger than 4 MiB' "$tmp/err"
ok_if "plan of a 4 MiB + 1 byte file exits 2"
# A file name that is not UTF-8 would end up in summary.json: refused, escaped.
odd=$(printf '%s/caf\351.topo' "$tmp")
cp topologies/direct.topo "$odd"
$CXLBED plan "$odd" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && grep -qF 'caf\xe9.topo:0: the file name is not UTF-8' "$tmp/err" &&
	iconv -f UTF-8 -t UTF-8 "$tmp/err" >/dev/null 2>&1
ok_if "plan of a non-UTF-8 file name exits 2, the name escaped"
# Validation is linear: 53,000 hosts (which never finished) plan at once
# (without the timing model, which takes 16 hosts).
awk 'BEGIN { for (i = 0; i < 53000; i++) printf "[host h%d]\n", i }' >"$tmp/hosts.topo"
timeout 120 $CXLBED plan --no-timing "$tmp/hosts.topo" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] && grep -q '^# topology hosts (.*): 53000 host(s)' "$tmp/out"
ok_if "plan of 53,000 hosts exits 0 (within 120 s)"

$CXLBED plan --help >"$tmp/out" 2>&1
if [ $? -eq 0 ] && grep -q -- "--rundir" "$tmp/out"; then
	say ok "plan --help describes the options"
else
	say "not ok" "plan --help describes the options"
fi
$CXLBED plan >"$tmp/out" 2>"$tmp/err"
if [ $? -eq 2 ] && [ -s "$tmp/err" ]; then
	say ok "plan without a topology exits 2 with a message"
else
	say "not ok" "plan without a topology exits 2 with a message"
fi
