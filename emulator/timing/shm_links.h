/* SPDX-License-Identifier: MIT */
/*
 * State that every host of a run shares: the bandwidth resources (links
 * and device media, by name) and the modeled-time slots of every vCPU.
 * Hosts are separate QEMU processes; the run creates a POSIX shared
 * memory segment (e.g. "/cxlbed-RUNID", O_EXCL), hands its name to each
 * host's plugin, and unlinks it when the run ends. Without a name the state is
 * private to the process (one host, unit tests).
 */
#ifndef CXLBED_SHM_LINKS_H
#define CXLBED_SHM_LINKS_H

#include "model_copy.h"
#include "model_fabric.h"
#include "model_stale.h"
#include "model_time.h"

/* a host is one flow of the fair sharing, its vCPUs the flow's slots */
#define TM_MAX_HOSTS MF_FLOWS
#define TM_MAX_VCPUS MF_FLOW_SLOTS
#define TM_MAX_SLOTS (TM_MAX_HOSTS * TM_MAX_VCPUS)
#define TM_MAX_RES 64
#define TM_SHM_MAGIC 0xCB5E7109u	/* bump when the layout changes */

struct tm_shared {
	uint32_t magic;
	int state;		/* 0 fresh, 1 being set up, 2 ready */
	int lock;		/* guards nres and resource creation */
	int nres;
	int nslots;
	int armed_hosts;	/* hosts that have started modeling */
	/*
	 * Bumped by the run when it rewrote host N's config (a pool LD bound
	 * or unbound by the fabric manager): its plugin reloads at its next
	 * check-in (plugin_reload.c).
	 */
	uint32_t config_gen[TM_MAX_HOSTS];
	/*
	 * The start barrier of `together` workloads (plugin_together.c):
	 * arrivals of the current generation, the latest arrival's modeled
	 * time, the time the last completed generation released at, and the
	 * clock slots of the arrivals waiting for the rest.
	 */
	struct {
		int lock;
		uint32_t gen;
		int arrived;
		uint64_t latest_ns;
		uint64_t release_ns;
		int nwaiting;
		int32_t waiting[TM_MAX_SLOTS];
	} together;
	uint64_t slot[TM_MAX_SLOTS];
	uint64_t beat[TM_MAX_SLOTS];
	uint32_t halted[TM_MAX_SLOTS];
	uint32_t watchers[TM_MAX_SLOTS];	/* tm_sync_sleep_on */
	uint32_t moved[TM_MAX_SLOTS];
	uint64_t wake_at[TM_MAX_SLOTS];
	struct mf_res res[TM_MAX_RES];
	/* copy engines: NICs and DMA engines, shared by name (model_copy.h) */
	struct ce_fabric copy;
	/* lines of pools the hosts share, watched for stale reads (last: the
	 * largest, its untouched pages cost nothing) */
	struct sr_table stale;
};

/* Map the segment @name, which the run has created (empty is fine: the
 * first host sizes it); NULL name: private memory. */
struct tm_shared *tm_shared_open(const char *name, char **err);
void tm_shared_close(struct tm_shared *s);

/*
 * The resource called @name, created with these bandwidths and queueing
 * service time (mf_res_init) if nobody has made it yet (the first host's
 * figures win). NULL when the table is full.
 */
struct mf_res *tm_shared_res(struct tm_shared *s, const char *name,
			     double read_gbps, double write_gbps,
			     double queue_ns);

/* A sync view over the segment's slots; slot numbers: host * MAX_VCPUS + vcpu. */
void tm_shared_sync(struct tm_shared *s, struct tm_sync *sync, uint64_t skew_ns,
		    unsigned int stale_ms);
void tm_shared_use_slot(struct tm_shared *s, int slot);

#endif
