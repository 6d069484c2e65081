/* SPDX-License-Identifier: MIT */
/*
 * Arbitration of shared bandwidth by modeled time.
 *
 * Room on a resource goes to transfers in the order they reach its lock,
 * and within a bucket a later arrival starts after the bytes already
 * there. If that order were host order, the vCPU or host that happens to
 * run faster in real time would claim capacity first and the other would
 * queue behind it (seen: 61-65% shares of a saturated link instead of 50).
 * So before a miss or prefetch reserves on a path, its requester waits (in
 * host time) until no other *active* user of a resource on that path is
 * behind it in modeled time. Reservations then reach each resource in
 * modeled-time order whatever the hosts' speeds, and shares follow the
 * model alone.
 *
 * Deadlock-free: a requester only waits for one whose published clock is
 * strictly lower (both compared as published, whole ns), and a waiter has
 * published its own clock, so every wait points to a smaller clock and the
 * lowest one never waits. Halted, stale (long silent) and finished slots
 * hold nobody back, as in the skew bound.
 */
#ifndef CXLBED_MODEL_SHARE_H
#define CXLBED_MODEL_SHARE_H

#include "model_fabric.h"
#include "model_time.h"

/*
 * A user whose latest reservation on a resource is this far behind its
 * own clock has stopped using it: it holds nobody back there.
 */
#define MS_IDLE_NS 2000

/*
 * The slot that @who, at modeled time @now, must wait for before reserving
 * on @t's path: an active user of one of its resources whose published
 * clock is more than @slack_ns behind. -1 when there is none.
 */
int ms_blocker(const struct mf_target *t, const struct tm_sync *s, int who,
	       double now, uint64_t slack_ns);

#endif
