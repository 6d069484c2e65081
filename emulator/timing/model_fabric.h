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
 * Each resource has two directions (read, write). One requester alone
 * uses the resource's own lanes (model_lane.h); requesters that share it
 * (vCPUs, hosts) each use a lane of their own at their share of its
 * bandwidth (model_share.h), so that none waits in host time for another.
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
 * A requester of a resource (a vCPU's sync slot), claimed at its first
 * transfer and kept. Everything in it is written by its requester alone;
 * others read only the bytes it moved in epochs now past (model_share.h).
 */
#define MF_USERS 16
#define MF_EPOCHS 4	/* ring of the latest epochs' bytes */

struct mf_user {
	/* first: what its requester writes at every transfer, one line */
	struct mf_counters count;	/* everything it moved here */
	/*
	 * What its host's other requesters had queued, on average, in that
	 * epoch: a transfer of its that finds its own lane idle waits behind
	 * them, first come first served within a host (model_share.h).
	 */
	double mates_ahead[2];
	uint64_t used[2][MF_EPOCHS];	/* bytes moved in epoch used_epoch */
	uint64_t queued[2][MF_EPOCHS];	/* of which behind its own earlier ones */
	double share[2][MF_EPOCHS];	/* its share then, bytes per ns */
	/* bytes its transfers found queued ahead of them, summed, and how many */
	uint64_t ahead[2][MF_EPOCHS], reqs[2][MF_EPOCHS];
	int64_t used_epoch[2][MF_EPOCHS];
	int64_t share_epoch[2];	/* the epoch its lanes' shares were set for */
	struct mf_lane lane[2];	/* its own, at its share (read, write) */
} __attribute__((aligned(64)));	/* no line shared with the next entry */

/*
 * Modeled ns of an epoch: shares are set from what every requester moved
 * two epochs before (model_share.h). At least twice the skew bound, so
 * that those epochs are over for every requester still running. The
 * plugin sets it from its skew; the same in every host of a run.
 */
extern double mf_epoch_ns;

struct mf_res {
	char name[MF_NAME];
	double gbps[2];		/* read, write; 0 = unlimited */
	double queue_ns;	/* M/D/1 service time (model_lane.h); 0 none */
	int lock;		/* the resource's own lanes, shared (anonymous) use */
	/*
	 * A fault's degradation (model_degrade.h), set live by the run: each
	 * byte occupies the resource 1/degrade_bw times as long (a link
	 * retrained narrower or slower, replays), and every access crossing
	 * it takes degrade_ns more. 0, 0: not degraded.
	 */
	double degrade_bw, degrade_ns;
	struct mf_counters total;	/* anonymous and overflow transfers */
	/*
	 * Whose each entry of users[] is: sync slot + 1, 0 = free. Every
	 * requester reads those before its own at every transfer
	 * (mf_res_user), so they sit on a line of their own: beside the
	 * first entry's counts, which its requester writes at every
	 * transfer, they cost two vCPUs streaming together a line transfer
	 * between the host's cores at each of the second one's misses.
	 */
	int32_t user_who[MF_USERS] __attribute__((aligned(64)));
	struct mf_user users[MF_USERS];
	struct mf_lane lane[2];		/* one requester alone; anonymous ones */
};

/*
 * Set a resource up: name, read and write bandwidth in GB/s, the service
 * time of its queueing term (0: none).
 */
void mf_res_init(struct mf_res *r, const char *name, double read_gbps,
		 double write_gbps, double queue_ns);
/*
 * Take @bytes in direction @dir at modeled time @t for requester @who (a
 * sync slot): on its own lane at its share (model_share.h), without a
 * lock. @who < 0 (anonymous), or a resource with no free user entry: on
 * the resource's lanes under its lock, its host (who / MF_FLOW_SLOTS) a
 * flow. Returns when the transfer gets through (>= t) and, in *queue, the
 * M/D/1 wait it adds to the latency. Counts it for @who.
 */
double mf_res_reserve(struct mf_res *r, enum mf_dir dir, double t,
		      uint32_t bytes, int who, double *queue);

/* @who's entry on @r, claimed now if it has none; NULL when all are taken. */
struct mf_user *mf_res_user(struct mf_res *r, int who);

static inline void mf_counters_add(struct mf_counters *a, const struct mf_counters *b)
{
	for (int d = 0; d < 2; d++) {
		a->bytes[d] += __atomic_load_n(&b->bytes[d], __ATOMIC_RELAXED);
		a->reqs[d] += __atomic_load_n(&b->reqs[d], __ATOMIC_RELAXED);
		a->wait_ns[d] += b->wait_ns[d];
	}
}

/*
 * What @r moved for host @host's requesters (@host < 0: everybody),
 * anonymous transfers counted with everybody's; racy reads, for reports
 * and for the host side (a fault's `written` trigger), which reads the
 * segment: inline, so that it needs none of the plugin's objects.
 */
static inline void mf_res_counters(const struct mf_res *r, int host, struct mf_counters *out)
{
	*out = (struct mf_counters){ 0 };
	if (host < 0)
		mf_counters_add(out, &r->total);
	for (int i = 0; i < MF_USERS; i++) {
		int32_t w = __atomic_load_n(&r->user_who[i], __ATOMIC_ACQUIRE);

		if (!w)
			break;
		if (host < 0 || (w - 1) / MF_FLOW_SLOTS == host)
			mf_counters_add(out, &r->users[i].count);
	}
}

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
	/*
	 * One requester uses the path's resources (one host, one vCPU): the
	 * resources' own lanes, no shares, no atomic counts (three locked
	 * operations a line of a stream were 4.6% of the model's time in a
	 * host harness).
	 */
	bool solo;
	/*
	 * Misses by requester (who % MF_FLOW_SLOTS; read and write), each
	 * requester's on a cache line of its own: one counter shared by
	 * the host's vCPUs, beside the fields every miss reads, put a line
	 * transfer between the host's cores in every miss (mf_target_misses
	 * sums them).
	 */
	struct mf_miss_count {
		uint64_t n[2];
		char pad[64 - 2 * sizeof(uint64_t)];
	} misses_by[MF_FLOW_SLOTS] __attribute__((aligned(64)));
};

/* @t's misses in direction @dir, every requester's. */
uint64_t mf_target_misses(const struct mf_target *t, enum mf_dir dir);

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
