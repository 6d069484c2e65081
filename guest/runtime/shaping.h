/* SPDX-License-Identifier: MIT */
/*
 * Transfer shaper: makes host memory behave like a far tier (CXL, RDMA).
 *
 * Each transfer first waits a fixed latency, then drains its bytes through
 * one shared link. The link is a fluid token bucket: at any instant its
 * bandwidth is split evenly between the transfers draining through it, so
 * concurrent streams contend fairly. The model is pure arithmetic on a
 * caller-supplied clock (nanoseconds), hence deterministic under test; the
 * real-time helpers at the bottom drive it from CLOCK_MONOTONIC for the
 * backends.
 */
#ifndef RT_SHAPING_H
#define RT_SHAPING_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#define SHP_MAX_XFERS 64

struct shp_params {
	uint64_t latency_ns;	/* added once per transfer */
	double gbps;		/* link cap in GB/s (== bytes/ns); 0 = unlimited */
};

struct shp_xfer {
	bool used;
	uint64_t start_ns;	/* submission time */
	double left;		/* bytes still to drain */
	uint64_t done_ns;	/* set once finished */
	bool done;
};

struct shaper {
	struct shp_params p;
	uint64_t now;		/* model time up to which state is valid */
	struct shp_xfer x[SHP_MAX_XFERS];
	pthread_mutex_t lock;	/* used by the real-time helpers only */
};

void shp_init(struct shaper *s, const struct shp_params *p);
void shp_destroy(struct shaper *s);

/* Virtual-clock model. Times never go backwards; an earlier @now is
 * treated as the model's current time. */
int shp_submit(struct shaper *s, uint64_t bytes, uint64_t now);	/* -1 full */
void shp_advance(struct shaper *s, uint64_t now);
bool shp_done(const struct shaper *s, int id, uint64_t *done_ns);
/* Completion time of @id if no other transfer arrives; UINT64_MAX if unknown. */
uint64_t shp_eta(const struct shaper *s, int id);
void shp_release(struct shaper *s, int id);

/* Completion time of a lone transfer of @bytes: latency + bytes / bw. */
uint64_t shp_alone_ns(const struct shp_params *p, uint64_t bytes);

/* Real time. shp_rt_begin stamps the transfer at the current time;
 * shp_rt_wait sleeps until the model says it has finished. Both lock. */
uint64_t shp_clock_ns(void);
int shp_rt_begin(struct shaper *s, uint64_t bytes);
void shp_rt_wait(struct shaper *s, int id);

#endif
