# debian-apt.sh: a private APT for Debian's kernel packages (sourced).
#
# cxlbed boots kernels from Debian suites the host does not use
# (trixie-backports, sid, ...). Added to the host's own sources, those
# suites would offer their packages to every `apt-get upgrade`. So they get
# an APT of their own instead: its sources list, package lists and cache
# live under $KAPT (build/cache/kernels/apt/), the dpkg status it sees is
# empty, and it is only ever asked to download (`apt-get download`), into
# build/cache/kernels/. The host's APT never lists those suites.
#
# The mirror is the one the host's APT already uses for Debian: APT itself
# reads its sources and prints what an update would fetch (as ci/deps does
# for bookworm-backports); no host is named here.
#
# Set KAPT before sourcing. CXLBED_KERNEL_SUITES overrides the suites.

KERNEL_SUITES=${CXLBED_KERNEL_SUITES:-"bookworm-backports trixie trixie-backports forky sid"}

kapt_opts() {
	echo "-o Dir::Etc::SourceList=$KAPT/sources.list" \
	     "-o Dir::Etc::SourceParts=$KAPT/sources.list.d" \
	     "-o Dir::Etc::PreferencesParts=$KAPT/preferences.d" \
	     "-o Dir::State::Lists=$KAPT/lists" \
	     "-o Dir::Cache=$KAPT/cache" \
	     "-o Dir::State::status=$KAPT/status" \
	     "-o APT::Architectures=amd64 -o Acquire::Languages=none" \
	     "-o APT::Sandbox::User=root"
}
kapt_get() { apt-get $(kapt_opts) "$@"; }
kapt_cache() { apt-cache $(kapt_opts) "$@"; }

# The Debian repository the host's APT uses (the one serving bookworm).
kapt_mirror() {
	apt-get update --print-uris 2>/dev/null |
		sed -n -e "s#^'\(.*\)/dists/bookworm/InRelease' .*#\1#p" -e "s#^'\(.*\)/dists/stable/InRelease' .*#\1#p" |
		head -n 1
}

# Write the private sources (again when the host's mirror changed).
kapt_setup() {
	mirror=$(kapt_mirror)
	[ -n "$mirror" ] || { echo "debian-apt: the host's APT sources list no Debian bookworm" \
		"repository to take the mirror from (/etc/apt/sources.list*)" >&2; return 1; }
	mkdir -p "$KAPT/sources.list.d" "$KAPT/preferences.d" "$KAPT/lists/partial" \
		"$KAPT/cache/archives/partial"
	: > "$KAPT/status.new"
	[ -f "$KAPT/status" ] || mv "$KAPT/status.new" "$KAPT/status"
	rm -f "$KAPT/status.new"
	for s in $KERNEL_SUITES; do
		echo "deb [arch=amd64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $s main"
	done > "$KAPT/sources.list.new"
	mv "$KAPT/sources.list.new" "$KAPT/sources.list"
}

kapt_update() {
	kapt_get update -qq 2>&1 | grep -v '^W: ' >&2 || true
	ls "$KAPT"/lists/*_Packages* >/dev/null 2>&1 ||
		{ echo "debian-apt: apt-get update fetched no package lists (is the mirror reachable?)" >&2; return 1; }
}

# The suite and version APT offers PACKAGE from: "SUITE VERSION" (the
# highest version; its first suite).
kapt_where() {
	kapt_cache madison "$1" 2>/dev/null | head -n 1 |
		awk -F' [|] ' '{ split($3, a, " "); sub("/.*", "", a[2]); print a[2], $2 }'
}
