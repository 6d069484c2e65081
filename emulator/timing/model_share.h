/* SPDX-License-Identifier: MIT */
/*
 * Sharing a resource's bandwidth between requesters without waiting for
 * one another.
 *
 * Each requester (a vCPU; its host is its flow) that shares a resource
 * transfers on a lane of its own (model_lane.h), first come first served
 * at its share of the resource's rate. The share is set once per epoch
 * (mf_epoch_ns of modeled time) from the bytes every user of the resource
 * moved two epochs before, by the rule of round robin between hosts and
 * between a host's requesters (model_lane.h, "Sharing"): of rate R, a
 * requester gets
 *
 *     its host's share   H = max(R / hosts, R - what the other hosts used)
 *     its own share      r = max(H / its host's users, H - what the other
 *                                 users of its host used)
 *
 * counting as "users" those that moved anything in that epoch, itself
 * always: every backlogged requester gets an equal part; one that wants
 * less leaves the rest to the others (work conserving), and its own
 * transfers pass at the equal part, as under round robin a lone request
 * waits at most one turn. A resource's queueing term sees its whole load:
 * the requester's own recent bytes and the others' rate of that epoch.
 *
 * Why epochs two back: with the epoch at least twice the skew bound,
 * every running requester is past the start of the previous epoch when
 * one enters a new one, so those bytes are final. The shares then depend
 * on modeled time alone, whatever the hosts' speeds, and no requester
 * waits in host time at a miss for a sharer to catch up (docs/timing-model.md,
 * "Keeping vCPUs and hosts in step": handing over at every miss made two
 * vCPUs streaming together on a busy host cost 12-45x one). Shares follow
 * a change of load two epochs late (8 us at the default skew).
 */
#ifndef CXLBED_MODEL_SHARE_H
#define CXLBED_MODEL_SHARE_H

#include "model_fabric.h"

/* Set @u's lane in direction @dir to its share for the epoch of @t. */
void ms_share(struct mf_res *r, struct mf_user *u, enum mf_dir dir, double t);

#endif
