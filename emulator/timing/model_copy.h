/* SPDX-License-Identifier: MIT */
/*
 * Copy engines: an RDMA NIC or a DMA engine that moves a whole transfer
 * of N bytes between two regions while the core that posted it goes on.
 * Modeled as a NIC moves data, bulk and pipelined, not as loads:
 *
 *     done = posted + (time its bytes take at its rate) + latency
 *
 * so a transfer alone on its engines takes latency + bytes / bandwidth.
 * A transfer crosses one or more copy resources (the local NIC port, the
 * remote one, a DMA engine), each with an achievable bandwidth and a
 * queue depth (transfers in flight at most; one posted beyond that waits
 * for a slot, first come first served). Transfers in flight share each
 * resource's bandwidth fairly (max-min: progressive filling, as a NIC
 * round-robins its queue pairs packet by packet), so two transfers on one
 * NIC each move at half its rate. A transfer may also be held below its
 * share by a cap of its own: the narrowest memory-side resource it reads
 * or writes (a pool's link), which it crosses as well.
 *
 * The state lives in the segment every host of a run maps (shm_links.h):
 * a NIC is shared by the hosts whose transfers cross it. Progress is
 * advanced in modeled time when a transfer is posted; a completion is
 * read by simulating forward from there without further arrivals, so a
 * later post that overlaps in modeled time slows transfers not yet
 * waited on, as it would on hardware. A post from before the present (a
 * host behind the others, within the skew bound) is served from the
 * present, as a lane's request is (model_lane.h).
 */
#ifndef CXLBED_MODEL_COPY_H
#define CXLBED_MODEL_COPY_H

#include <stdbool.h>
#include <stdint.h>

#include "model_fabric.h"

#define CE_MAX_RES 16		/* copy resources of a run */
#define CE_MAX_XFERS 128	/* transfers posted and not yet collected */
#define CE_MAX_HOPS 4		/* copy resources one transfer crosses */
#define CE_MAX_DEPTH 256

struct ce_res {
	char name[MF_NAME];
	double gbps;		/* achievable bandwidth (bytes per ns) */
	int depth;		/* transfers in flight at most */
	uint64_t xfers, bytes;	/* what crossed it, every host */
	double queued_ns;	/* time transfers waited for a slot here */
};

enum ce_state { CE_FREE = 0, CE_QUEUED, CE_MOVING, CE_MOVED };

struct ce_xfer {
	int32_t state;		/* enum ce_state */
	int32_t owner;		/* poster's sync slot */
	uint64_t tag;		/* the poster's name for it */
	int nhops;
	int hop[CE_MAX_HOPS];	/* indices into ce_fabric.res */
	double cap;		/* its own rate limit, bytes per ns (0: none) */
	double latency_ns;	/* added once its bytes have moved */
	double bytes;
	double posted, started;	/* modeled ns */
	double left;		/* bytes still to move at ce_fabric.at */
	double moved_at;	/* when its last byte moved (CE_MOVED) */
};

struct ce_fabric {
	int lock;
	int nres;
	struct ce_res res[CE_MAX_RES];
	double at;		/* modeled ns the transfers' progress stands for */
	struct ce_xfer x[CE_MAX_XFERS];
};

/*
 * The resource called @name, created with @gbps and @depth if nobody has
 * made it yet (the first host's figures win); -1 when the table is full
 * or the figures are unusable.
 */
int ce_res_get(struct ce_fabric *f, const char *name, double gbps, int depth);

/*
 * Post a transfer of @bytes at modeled time @t for @owner, crossing
 * resources @hop[0..nhops) (indices from ce_res_get), at most @cap GB/s
 * (0: no cap of its own), done @latency_ns after its last byte moved.
 * Returns its handle, -1 when CE_MAX_XFERS are outstanding.
 */
int ce_post(struct ce_fabric *f, double t, double bytes, const int *hop,
	    int nhops, double cap, double latency_ns, int owner, uint64_t tag);

/*
 * When transfer @h completes, as far as what has been posted tells
 * (later posts overlapping it may still slow it: read it when waiting).
 */
double ce_done(struct ce_fabric *f, int h);

/* Forget transfer @h (its poster waited for it). */
void ce_collect(struct ce_fabric *f, int h);

/* @owner's outstanding transfer tagged @tag; -1: none. */
int ce_find(struct ce_fabric *f, int owner, uint64_t tag);

#endif
