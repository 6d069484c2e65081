#!/bin/sh
# `cxlbed export --libvirt`: the default topology's domain XML is defined
# and started on a real libvirtd (Debian's libvirt-daemon-system), which
# runs QEMU as its own user; the guest's agent greets on its channel with
# the region it brought online at boot, enumerate shows the region online,
# and the domain is destroyed and undefined: none left behind. The
# libvirt daemons are started here when none runs, and stopped after.
# Where /dev/kvm is root-only (no udev, as in containers), libvirt would
# re-probe QEMU on every call (~4 s each: its cache sees KVM usable by
# root but not by its QEMU user); the set-up gives /dev/kvm udev's usual
# group kvm and mode 0660 for the test and puts it back after.
. "$(dirname "$0")/lib.sh"
need_image
[ "$(id -u)" = 0 ] || skip_all "not root: cannot start libvirtd (run the suite as root)"
command -v virsh >/dev/null && [ -x /usr/sbin/libvirtd ] ||
	skip_all "no libvirt (Debian: libvirt-daemon-system; ci/deps installs it)"
plan 13

uri=qemu:///system
v() { virsh -q -c $uri "$@"; }
topo=$top/topologies/default.topo
dom=cxlbed-default-h0
started=

kvm_mode=
kvm_restore() {
	[ -n "$kvm_mode" ] && chmod "${kvm_mode%% *}" /dev/kvm && chgrp "${kvm_mode#* }" /dev/kvm
}
if [ -c /dev/kvm ] && id libvirt-qemu >/dev/null 2>&1 &&
   ! runuser -u libvirt-qemu -- test -r /dev/kvm -a -w /dev/kvm 2>/dev/null; then
	kvm_mode=$(stat -c '%a %G' /dev/kvm)
	chgrp kvm /dev/kvm && chmod 0660 /dev/kvm
fi

stop_daemons() {
	for p in $started; do
		pid=$(cat "$p" 2>/dev/null) && kill "$pid" 2>/dev/null
	done
	[ -n "$qconf_saved" ] && cp "$qconf_saved" /etc/libvirt/qemu.conf
}
teardown() {
	v destroy $dom >/dev/null 2>&1
	v undefine $dom >/dev/null 2>&1
	stop_daemons
	kvm_restore
	cleanup
}
trap teardown EXIT

# A domain of that name from an earlier, interrupted run would hide ours.
if v version >/dev/null 2>&1 && v dominfo $dom >/dev/null 2>&1; then
	skip_all "a domain $dom already exists on $uri; remove it first (virsh undefine $dom)"
fi
qconf_saved=
if ! v version >/dev/null 2>&1; then
	# In a chroot "/" is not a mount point, and libvirt's QEMU driver,
	# which makes "/" private in the guest's mount namespace, fails every
	# start ("Failed disable mount propagation out of the root
	# filesystem"); the daemon we start then runs without that namespace,
	# and qemu.conf is restored when it stops.
	if ! mountpoint -q / && [ -f /etc/libvirt/qemu.conf ] &&
	   ! grep -q '^namespaces' /etc/libvirt/qemu.conf; then
		qconf_saved=$outroot/qemu.conf.orig
		cp /etc/libvirt/qemu.conf "$qconf_saved"
		echo 'namespaces = []' >>/etc/libvirt/qemu.conf
	fi
	ps -C virtlogd -o stat= | grep -qv Z ||
		{ /usr/sbin/virtlogd -d -p "$outroot/virtlogd.pid" && started="$outroot/virtlogd.pid"; }
	/usr/sbin/libvirtd -d -p "$outroot/libvirtd.pid" && started="$started $outroot/libvirtd.pid"
	i=0
	until v version >/dev/null 2>&1; do
		i=$((i + 1)); [ $i -gt 100 ] && break; sleep 0.2
	done
fi
ok $? "libvirtd answers on $uri"

# The export folder must be readable by libvirt's QEMU user.
chmod 755 "$outroot"
exp=$outroot/export
"$cxlbed" export --libvirt --out "$exp" "$topo" >"$outroot/export.out" 2>"$outroot/export.err"
rc=$?
xml=$exp/$dom.xml
check "export exits 0 and names $dom.xml (rc $rc)" sh -c "[ $rc = 0 ] && grep -qx '$xml' '$outroot/export.out'"
grep -q warning "$outroot/export.err" && diag <"$outroot/export.err"

# The CXL part of the domain is plan's command line (no timing model).
"$cxlbed" plan --no-timing --rundir "$exp" "$topo" |
	sed -n 's/^    \(-device\|-object\|-acpitable\|-M\) \(.*\)$/\1 \2/p' | sed 's/ \\$//' |
	grep -v -e '^-device virtio-serial-pci' -e '^-device virtserialport' >"$outroot/plan.args"
xmllint --xpath '//*[local-name()="commandline"]/*/@value' "$xml" |
	sed 's/^ *value="\(.*\)"$/\1/' | paste -d' ' - - | grep -v '^-machine ' >"$outroot/xml.args"
check "qemu:commandline carries plan's CXL arguments in order ($(wc -l <"$outroot/plan.args") options)" \
	sh -c "[ -s '$outroot/plan.args' ] && cmp -s '$outroot/plan.args' '$outroot/xml.args'"
[ $? -eq 0 ] || diff "$outroot/plan.args" "$outroot/xml.args" | head -n 10 | diag

v define "$xml" >"$outroot/define.out" 2>&1
ok $? "virsh define"
v start $dom >"$outroot/start.out" 2>&1
rc=$?
ok $rc "virsh start"
[ $rc -eq 0 ] || { diag <"$outroot/start.out"; tail -n 5 /var/log/libvirt/qemu/$dom.log 2>/dev/null | diag; }

# The agent's channel: a unix socket libvirt made; read its hello, then
# ask it to enumerate (the same protocol `cxlbed run` speaks).
sock=$(v dumpxml $dom | sed -n "s/.*<source mode='bind' path='\([^']*org.cxlbed.agent\)'.*/\1/p")
timeout 240 perl -MIO::Socket::UNIX -e '
	my ($path, $hello, $reply) = @ARGV;
	my $s;
	for (1 .. 100) { last if $s = IO::Socket::UNIX->new(Peer => $path); sleep 1; }
	$s or die "cannot connect to $path\n";
	while (my $l = <$s>) {
		if ($l =~ /"event":"hello"/) {
			open(my $h, ">", $hello); print $h $l; close $h;
			print $s "{\"id\":1,\"cmd\":\"enumerate\"}\n";
		} elsif ($l =~ /^\{"id":1,/) {
			open(my $r, ">", $reply); print $r $l; close $r;
			last;
		}
	}' "$sock" "$outroot/hello.json" "$outroot/enumerate.json" 2>"$outroot/agent.err"
rc=$?
ok $rc "the agent greets on its channel (${sock:-no socket})"
[ $rc -eq 0 ] || { diag <"$outroot/agent.err"; tail -n 20 /var/log/libvirt/qemu/$dom.log | diag; }
check "the hello reports region r0 online at boot as NUMA node 1, 1 GiB" \
	[ "$(jq -r '.boot_regions[0] | "\(.id) \(.mode) \(.node) \(.size)"' "$outroot/hello.json" 2>/dev/null)" = "r0 ram 1 1073741824" ]
check "enumerate: 4 memdevs and the 4-way region online" \
	[ "$(jq -r '.result | "\(.memdevs | length) \(.regions[0].ways // (.regions[0].targets | length)) \(.regions[0].online)"' "$outroot/enumerate.json" 2>/dev/null)" = "4 4 true" ]
check "the guest's CXL node holds 1 GiB" \
	[ "$(jq -r '[.result.nodes[] | select(.kind=="cxl") | .mem_bytes] | add' "$outroot/enumerate.json" 2>/dev/null)" = 1073741824 ]

v destroy $dom >/dev/null 2>&1
v undefine $dom >"$outroot/undefine.out" 2>&1
ok $? "virsh destroy and undefine"
domain_gone() { v list --all --name >"$outroot/list.out" 2>&1 && ! grep -qx "$dom" "$outroot/list.out"; }
check "no domain left: $dom not in virsh list --all" domain_gone
check "no QEMU of the domain left" sh -c "! pgrep -f 'qemu-system.*guest=[c]xlbed-default-h0' >/dev/null"

# Bad input starts nothing.
"$cxlbed" export --libvirt --host nosuch --out "$outroot/never" "$topo" >/dev/null 2>"$outroot/bad.err"
rc=$?
check "export --host nosuch: exit 2 naming the hosts, nothing written (rc $rc)" \
	sh -c "[ $rc = 2 ] && grep -q 'its hosts: h0' '$outroot/bad.err' && [ ! -e '$outroot/never' ]"
finish
