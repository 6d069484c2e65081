/* SPDX-License-Identifier: MIT */
/*
 * A resource a fault degraded (docs/faults.md, link-degrade and
 * link-flap): the run writes mf_res.degrade_bw and degrade_ns into the
 * shared segment while the guests run; every host's model reads them on
 * each access, so a change applies to all hosts at once.
 */
#ifndef CXLBED_MODEL_DEGRADE_H
#define CXLBED_MODEL_DEGRADE_H

#include "model_fabric.h"

/* The bytes a transfer of @bytes occupies @r for: 1/k as many when degraded. */
static inline uint32_t mf_degraded_bytes(const struct mf_res *r, uint32_t bytes)
{
	double k;

	__atomic_load(&r->degrade_bw, &k, __ATOMIC_RELAXED);
	return k > 0 && k < 1 ? (uint32_t)(bytes / k + 0.5) : bytes;
}

/* Latency every access through @r gains. */
static inline double mf_degraded_ns(const struct mf_res *r)
{
	double ns;

	__atomic_load(&r->degrade_ns, &ns, __ATOMIC_RELAXED);
	return ns;
}

/* Set (k in (0, 1], extra ns) or clear (1, 0) a resource's degradation. */
static inline void mf_res_degrade(struct mf_res *r, double k, double extra_ns)
{
	double bw = k >= 1 ? 0.0 : k;

	__atomic_store(&r->degrade_bw, &bw, __ATOMIC_RELAXED);
	__atomic_store(&r->degrade_ns, &extra_ns, __ATOMIC_RELAXED);
}

#endif
