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
 * Each resource has two lanes (read, write) that share their bandwidth
 * between hosts and add queueing below saturation (model_lane.h).
 * Resources may live in a segment shared by hosts.
 */
#ifndef CXLBED_MODEL_FABRIC_H
#define CXLBED_MODEL_FABRIC_H

#include <stdbool.h>
#include <stdint.h>

#include "model_lane.h"

enum mf_dir { MF_READ = 0, MF_WRITE = 1 };

#define MF_NAME 64
/* Requesters (sync slots) per flow: a host's vCPUs are one flow. */
#define MF_FLOW_SLOTS 32

/* Counters a resource keeps, totals over every host. */
struct mf_counters {
	uint64_t bytes[2];
	uint64_t reqs[2];
	double wait_ns[2];	/* sum of queueing delay (sharing + M/D/1) */
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
	double queue_ns;	/* M/D/1 service time (model_lane.h); 0 none */
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
	struct mf_lane lane[2];
};

/*
 * Set a resource up: name, read and write bandwidth in GB/s, the service
 * time of its queueing term (0: none).
 */
void mf_res_init(struct mf_res *r, const char *name, double read_gbps,
		 double write_gbps, double queue_ns);
/*
 * Take @bytes in direction @dir at modeled time @t for requester @who (a
 * sync slot, < 0: anonymous; its host is its flow), under the resource's
 * lock. Returns when the transfer gets through (>= t) and, in *queue, the
 * M/D/1 wait it adds to the latency. Counts it in the totals and, when
 * given, in @mine (one host's share); records @who as a user.
 */
double mf_res_reserve(struct mf_res *r, enum mf_dir dir, double t,
		      uint32_t bytes, struct mf_counters *mine, int who,
		      double *queue);

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
	/*
	 * One requester uses the path's resources (one host, one vCPU): no
	 * locks, no atomic counts (three locked operations a line of a
	 * stream, 4.6% of the model's time in a host harness).
	 */
	bool solo;
};

struct mf_region {
	char name[MF_NAME];
	uint64_t base, size;
	uint32_t gran;		/* interleave granularity, bytes */
	int ways;
	/*
	 * A shift and a mask for gran and ways when both are powers of two
	 * (ways 3, 6 and 12 are not): a new line is decoded without two
	 * divisions (mf_region_init). 0, as a region left zeroed has: divide.
	 */
	int gran_shift_plus1;
	uint32_t ways_mask;
	struct mf_target *t[MF_MAX_WAYS];
};

/* @g's decoding shortcuts, once its gran and ways are set. */
void mf_region_init(struct mf_region *g);

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
 * back (read) or accepted (write): when it got through every resource of
 * the path, plus the path latency and each resource's queueing wait.
 */
double mf_access(struct mf_target *t, enum mf_dir dir, double issue,
		 uint32_t bytes);
/*
 * The same on behalf of requester @who (a sync slot; < 0: anonymous).
 * When @passed is given it receives the time the transfer got through the
 * last resource (a write-back's buffer entry is free then).
 */
double mf_access_by(struct mf_target *t, enum mf_dir dir, double issue,
		    uint32_t bytes, int who, double *passed);

/*
 * Bounded misses in flight per core: each slot holds a completion time,
 * kept sorted in a ring (the earliest free slot at @head). A fill takes the
 * earliest slot and puts its new time in order from the latest end: the
 * misses of a stream complete in the order they were issued, so that is
 * one comparison, where a heap's sift-down took log(n) unpredictable ones
 * (6% of the vCPU thread on a stream from memory).
 */
#define MF_MAX_WINDOW 256

struct mf_window {
	int n;
	int head;		/* the earliest slot */
	double done[MF_MAX_WINDOW];
};

void mf_window_init(struct mf_window *w, int n);

/* When the earliest slot frees (0: never used). */
static inline double mf_window_earliest(const struct mf_window *w)
{
	return w->done[w->head];
}

/* Earliest time >= @now at which a slot is free. */
static inline double mf_window_slot(const struct mf_window *w, double now)
{
	double e = mf_window_earliest(w);

	return e > now ? e : now;
}

/* Is a slot free at @now? */
static inline bool mf_window_has_free(const struct mf_window *w, double now)
{
	return mf_window_earliest(w) <= now;
}

/* Occupy the earliest-free slot until @done. */
void mf_window_fill(struct mf_window *w, double done);

#endif
