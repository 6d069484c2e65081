/* SPDX-License-Identifier: MIT */
/*
 * The one model of a path: what an access from a host to one of its
 * Type-3 devices crosses, derived once when the topology is loaded.
 *
 * Every consumer reads it: the timing model's resources and hop latency
 * (emulator/qemu/timing_config.c), the latency the guest kernel should
 * compute from CDAT and HMAT (emulator/run/guest_view.c) and each region's
 * HMAT entry (emulator/qemu/numa_layout.c), the configured
 * bandwidth of a region (`path GB/s` of `cxlbed table`), the path names
 * in plans, results and tables. Nothing else walks up a device's ports.
 *
 * Hops run top down: the host bridge; per switch level the link above the
 * switch, then the switch itself; the link above the device; the device's
 * media. Each hop keeps the section its figures came from.
 */
#ifndef CXLBED_TOPOLOGY_PATH_H
#define CXLBED_TOPOLOGY_PATH_H

#include "topology/topology.h"

enum cb_dir { CB_READ = 0, CB_WRITE = 1 };

enum cb_hop_kind {
	CB_HOP_BRIDGE,		/* host bridge: latency, CPU <-> bridge bandwidth */
	CB_HOP_LINK,		/* the link above a switch or a device */
	CB_HOP_SWITCH,		/* a switch's traversal: latency only */
	CB_HOP_MEDIA,		/* the device's (or its pool's) memory */
};

struct cb_hop {
	enum cb_hop_kind kind;
	const char *id;		/* bridge, switch or device id; a link is named
				 * by what hangs below it */
	struct cb_src src;	/* the section its figures came from */
	double latency_ns[2];	/* per direction; media: access latency */
	double gbps[2];		/* per direction; <= 0: no limit of its own */
	double cap_gbps;	/* LINK: this host's QoS cap on it; 0: none */
	const struct cb_link *link;	/* LINK: width and speed */
	/*
	 * The bandwidth resource this hop is, by a name every host crossing
	 * the same thing uses ("bridge:hb0", "link:sw0", "media:mem0",
	 * "media:pool:p0"), NULL for a switch traversal. A pool's media is
	 * one resource whichever host's device reaches it.
	 */
	char *resource;
	char *cap_resource;	/* LINK with a cap: "cap:link:ID:HOST" */
};

struct cb_path {
	const struct cb_device *device;
	char *text;		/* "hb0/rp0/sw0/mem0" */
	int switch_levels;	/* 0: the device sits on a root port */
	int nhops;
	struct cb_hop *hops;	/* [nhops], top down, media last */
	double hops_ns;		/* bridge + switches + links, as configured */
	double latency_ns[2];	/* idle access: media + hops_ns */
};

/* The device's derived path (never NULL once the topology is loaded). */
static inline const struct cb_path *cb_device_path(const struct cb_device *d)
{
	return d->path;
}

/* Its text: "hb0/rp0/sw0/mem0" (owned by the topology). */
const char *topology_device_path(const struct cb_device *d);
int topology_device_switch_levels(const struct cb_device *d);
/* The first hop of @kind, or NULL. */
const struct cb_hop *cb_path_find(const struct cb_path *p, enum cb_hop_kind kind);

/*
 * A region's configured figures, from its devices' paths. Bandwidth: the
 * narrowest resource scaled by the share of the interleave crossing it
 * (a resource that k of the region's w devices sit behind carries k/w of
 * the traffic, so limits the region to its bandwidth x w/k), QoS caps
 * included; < 0 when nothing limits it. Latency: an interleave spreads
 * accesses evenly, so an idle access costs the mean of its devices'
 * latencies; the slowest device's is what the kernel reports for it.
 */
double topology_region_gbps(const struct cb_region *reg, enum cb_dir dir);
double topology_region_latency_ns(const struct cb_region *reg, enum cb_dir dir);
double topology_region_max_latency_ns(const struct cb_region *reg,
				      enum cb_dir dir);

/* Compatibility name for the read direction. */
static inline double topology_region_read_gbps(const struct cb_region *reg)
{
	return topology_region_gbps(reg, CB_READ);
}

#endif
