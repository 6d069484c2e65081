/* SPDX-License-Identifier: MIT */
/*
 * Fabric model: where an access goes and what it costs below the caches.
 *
 * A target is local DRAM or one CXL device. Its path is a list of
 * bandwidth resources (each link the access crosses, and the media
 * itself), plus a fixed latency: media + host bridge + every switch and
 * link on the way, round trip. A miss costs that latency plus the time it
 * queues for bandwidth on each resource.
 *
 * Bandwidth is kept as a ring of time buckets per resource and direction:
 * a bucket is a span of modeled time that can carry a fixed number of
 * bytes. A transfer at time t takes room in the first bucket at or after t
 * that has some; it starts when that room comes up. Requests from a vCPU
 * or host slightly behind in modeled time still find the room that was
 * free at their time, so the order in which host threads happen to run
 * changes little. Resources may live in a segment shared by hosts.
 */
#ifndef CXLBED_MODEL_FABRIC_H
#define CXLBED_MODEL_FABRIC_H

#include <stdbool.h>
#include <stdint.h>

enum mf_dir { MF_READ = 0, MF_WRITE = 1 };

#define MF_BUCKETS 4096
/* Bytes a bucket carries: a whole number of lines keeps rates exact. */
#define MF_BUCKET_BYTES (32u * 64u)
#define MF_NAME 64

struct mf_bucket {
	uint64_t tag;		/* bucket number held in this slot */
	uint32_t used;		/* bytes taken */
	uint32_t pad;
};

/* Counters a resource keeps, totals over every host. */
struct mf_counters {
	uint64_t bytes[2];
	uint64_t reqs[2];
	double wait_ns[2];	/* sum of queueing delay */
};

/*
 * Who has used a resource lately, for arbitration by modeled time (see
 * model_share.h): a requester (a vCPU's sync slot) and the modeled time of
 * its latest reservation. Written under the resource's lock, read without.
 */
#define MF_USERS 16

struct mf_user {
	int32_t who;		/* sync slot + 1; 0 = free entry */
	uint32_t pad;
	uint64_t last;		/* modeled ns of its latest reservation */
};

struct mf_res {
	char name[MF_NAME];
	double gbps[2];		/* read, write; 0 = unlimited */
	double bucket_ns[2];
	int lock;
	/*
	 * A fault's degradation (model_degrade.h), set live by the run: each
	 * byte occupies the resource 1/degrade_bw times as long (a link
	 * retrained narrower or slower, replays), and every access crossing
	 * it takes degrade_ns more. 0, 0: not degraded.
	 */
	double degrade_bw, degrade_ns;
	struct mf_counters total;
	struct mf_user users[MF_USERS];
	struct mf_bucket b[2][MF_BUCKETS];
};

/* Set a resource up (name, read and write bandwidth in GB/s). */
void mf_res_init(struct mf_res *r, const char *name, double read_gbps,
		 double write_gbps);
/*
 * Take room for @bytes in direction @dir at modeled time @t; returns when
 * the transfer starts (>= t). Counts it in the totals and, when given, in
 * @mine (one host's share), under the resource's lock. @who (a sync slot,
 * < 0: anonymous) is recorded as a user of the resource.
 */
double mf_res_reserve(struct mf_res *r, enum mf_dir dir, double t,
		      uint32_t bytes, struct mf_counters *mine, int who);

#define MF_MAX_PATH 8
#define MF_MAX_WAYS 16

struct mf_target {
	char name[MF_NAME];
	char path[128];		/* "hb0/rp0/sw0/mem0", or "local" */
	bool cxl;
	double media_ns[2];	/* device (or DRAM) latency, read/write */
	double hops_ns;		/* bridge, ports, switches, links: round trip */
	int nres;
	struct mf_res *res[MF_MAX_PATH];
	/* this host's share of traffic on each resource of the path */
	struct mf_counters *mine[MF_MAX_PATH];
	uint64_t misses[2];
};

struct mf_region {
	char name[MF_NAME];
	uint64_t base, size;
	uint32_t gran;		/* interleave granularity, bytes */
	int ways;
	struct mf_target *t[MF_MAX_WAYS];
};

struct mf_fabric {
	int ntargets;
	struct mf_target *targets;	/* every target, local DRAM included */
	struct mf_target *local;
	int nregions;
	struct mf_region *regions;
};

/*
 * The target of guest-physical @pa: a region's device (decoded through
 * its interleave), local DRAM for RAM (!is_io), NULL for other MMIO.
 */
struct mf_target *mf_decode(const struct mf_fabric *f, uint64_t pa,
			    bool is_io);

static inline double mf_target_latency(const struct mf_target *t,
				       enum mf_dir dir)
{
	return t->media_ns[dir] + t->hops_ns;
}

/*
 * One line transfer issued at @t to @t's target; returns when the data is
 * back (read) or accepted (write): start after queueing on every resource
 * of the path, plus the path latency.
 */
double mf_access(struct mf_target *t, enum mf_dir dir, double issue,
		 uint32_t bytes);
/* The same on behalf of requester @who (a sync slot; < 0: anonymous). */
double mf_access_by(struct mf_target *t, enum mf_dir dir, double issue,
		    uint32_t bytes, int who);

/* Bounded misses in flight per core: each slot holds a completion time. */
#define MF_MAX_WINDOW 256

struct mf_window {
	int n;
	double done[MF_MAX_WINDOW];
};

void mf_window_init(struct mf_window *w, int n);
/* Earliest time >= @now at which a slot is free. */
double mf_window_slot(const struct mf_window *w, double now);
/* Is a slot free at @now? (Stops at the first.) */
bool mf_window_has_free(const struct mf_window *w, double now);
/* Slots free at @now. */
int mf_window_free(const struct mf_window *w, double now);
/* Occupy the earliest-free slot until @done. */
void mf_window_fill(struct mf_window *w, double done);

#endif
