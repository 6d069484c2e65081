#!/bin/sh
# cxlbed plan: every shipped topology plans (exit 0) and shows each device's
# cxl-type3 with its serial; every file in tests/data/bad exits 2 with
# FILE:LINE: on stderr, LINE being the one marked "<-- error".
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
n=0
for f in $good; do n=$((n + 2)); done
for f in $bad; do n=$((n + 1)); done
echo "1..$((n + 2))"

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

for f in $bad; do
	line=$(grep -n '<-- error' "$f" | head -1 | cut -d: -f1)
	$CXLBED plan "$f" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 2 ] && grep -q "^$f:$line: " "$tmp/err" && [ ! -s "$tmp/out" ]; then
		say ok "plan $f exits 2 with $f:$line:"
	else
		say "not ok" "plan $f exits 2 with $f:$line: (got $rc)"
		sed 's/^/# /' "$tmp/err"
	fi
done

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
