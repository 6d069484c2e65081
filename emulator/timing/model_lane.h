/* SPDX-License-Identifier: MIT */
/*
 * One direction of a bandwidth resource (a link, a host bridge, a device's
 * media, a host's QoS cap): who gets its bandwidth when, and how long a
 * transfer queues there. Two rules, both in modeled time:
 *
 * Sharing between hosts is per request, round robin, as a CXL/PCIe port
 * arbitrates between its ingress ports: modeled as fair queueing (the
 * fluid form of round robin). Each host is a flow; every flow with
 * transfers waiting gets an equal share of the rate, and a flow that
 * wants less than its share leaves the rest to the others (work
 * conserving). A lane of one resource with several flows does this
 * directly (anonymous requesters); requesters that share a resource each
 * take a lane of their own at their share instead (model_share.h).
 * A flow's transfer passes at the time its last byte would leave the
 * resource under that rule, less the time to send it at full rate: idle,
 * it passes at once; a saturated resource delivers exactly its rate.
 *
 * Queueing below saturation: requests of real loads do not arrive evenly,
 * so a resource queues before it is full. The model adds, on top of the
 * sharing rule, the mean wait of an M/D/1 queue,
 *     wait = q * rho / (2 (1 - rho))
 * with rho the resource's utilisation over the last few microseconds of
 * modeled time (an exponentially decaying average, so that it depends on
 * when requests came relative to each other, never on where a run's
 * modeled time happens to fall against fixed window edges) and q its
 * service time (queue_ns). rho is
 * held at MF_RHO_MAX so that a load which can fill the resource still gets
 * its full rate; beyond that, the sharing rule's own queue takes over.
 *
 * A request from before the lane's present (its requester's clock is
 * behind the lane's latest transfer) is served from its present.
 */
#ifndef CXLBED_MODEL_LANE_H
#define CXLBED_MODEL_LANE_H

#include <stdint.h>

/* Flows: hosts of a run (traffic of one host's vCPUs is one flow). */
#define MF_FLOWS 16
/* Utilisation at which the M/D/1 term stops growing (9.5 q of wait). */
#define MF_RHO_MAX 0.95
/*
 * Service time of a memory medium's queue, as a share of its idle latency
 * when the configuration gives none (docs/timing-model.md, "Queueing").
 */
#define MF_MEDIA_QUEUE_SHARE 0.2
/* Shortest utilisation window, and at least this many lines' worth. */
#define MF_WINDOW_NS 4000.0
#define MF_WINDOW_LINES 64

struct mf_lane {
	double rate;		/* bytes per ns (GB/s); 0 = unlimited */
	double per_byte;	/* 1 / rate: ns a byte takes */
	double queue_ns;	/* M/D/1 service time; 0 = no queueing term */
	double window_ns;	/* utilisation window */
	double per_window;	/* 1 / window_ns */
	double recent;		/* bytes arrived, decayed by e^(-age/window) */
	double recent_at;	/* modeled ns that @recent stands for */
	double vtime;		/* bytes served to each waiting flow so far */
	double at;		/* modeled ns that vtime stands for */
	int nflows;		/* flows seen (entries of finish[] in use) */
	double finish[MF_FLOWS];	/* vtime at which a flow's last transfer ends */
	/*
	 * A requester's own lane on a shared resource (model_share.h) runs
	 * at its share of the resource's rate; its queueing term still sees
	 * the whole resource: utilisation over the full rate (rho_per_byte),
	 * its own recent bytes plus the others' (others_rate, bytes per ns).
	 * A lane of its own: rho_per_byte == per_byte, others_rate 0.
	 */
	double rho_per_byte;
	double others_rate;
};

void mf_lane_init(struct mf_lane *l, double gbps, double queue_ns);
/*
 * Serve at @share_gbps of the lane's own rate (its whole resource's),
 * others drawing @others_gbps of it meanwhile (model_share.h).
 */
void mf_lane_set_share(struct mf_lane *l, double full_gbps, double share_gbps,
		       double others_gbps);

struct mf_grant {
	double pass;		/* when the transfer gets through (>= request) */
	double queue;		/* M/D/1 wait, added to the transfer's latency */
};

/* A transfer of @bytes by @flow at modeled time @t. Not thread safe. */
struct mf_grant mf_lane_take(struct mf_lane *l, int flow, double t,
			     uint32_t bytes);

/* The M/D/1 wait at utilisation @rho with service time @q. */
double mf_md1_wait(double q, double rho);

#endif
