/* SPDX-License-Identifier: MIT */
/*
 * The per-host timing configuration the runner writes (format in
 * docs/timing-model.md) and the fabric built from it.
 */
#ifndef CXLBED_TM_CONFIG_H
#define CXLBED_TM_CONFIG_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "model_fabric.h"
#include "model_mem.h"
#include "shm_links.h"

#define TM_CONFIG_MAGIC "cxlbed-timing"
#define TM_CONFIG_VERSION 1

struct tm_cfg_res {
	char name[MF_NAME];
	double gbps[2];
	double queue_ns;	/* M/D/1 service time; < 0: derived (tm_fabric_build) */
};

struct tm_cfg_target {
	char name[MF_NAME];
	char path[128];
	bool cxl;
	double media_ns[2];
	double hops_ns;
	int nvia;
	char via[MF_MAX_PATH][MF_NAME];
};

struct tm_cfg_region {
	char name[MF_NAME];
	uint64_t base, size;
	uint32_t gran;
	int ways;
	char targets[MF_MAX_WAYS][MF_NAME];
	/*
	 * Where the region starts in the run's shared space (a pool both
	 * hosts map, the same offset on every host): its lines are watched
	 * for stale reads (model_stale.h). TM_NOT_SHARED: private.
	 */
	uint64_t share;
};
#define TM_NOT_SHARED UINT64_MAX

/* A copy resource (model_copy.h): a NIC port, a DMA engine; by name. */
struct tm_cfg_copyres {
	char name[MF_NAME];
	double gbps;
	int depth;
};

/*
 * A copy engine a guest names by its index (cxlbed-copy.h): the copy
 * resources it crosses, its per-transfer latency, and a cap of its own
 * (0: none): the narrowest resource of the memory it reads or writes
 * (a pool's link, for a DMA engine that reads the pool).
 */
#define TM_ENGINE_VIA 4
struct tm_cfg_engine {
	char name[MF_NAME];
	double latency_ns;
	double cap_gbps;
	int nvia;
	char via[TM_ENGINE_VIA][MF_NAME];
};

struct tm_config {
	char host[MF_NAME];
	int host_index;
	double ns_per_insn;
	uint64_t skew_ns;
	struct tm_mem_cfg mem;
	GArray *res;		/* struct tm_cfg_res */
	GArray *targets;	/* struct tm_cfg_target */
	GArray *regions;	/* struct tm_cfg_region */
	GArray *copyres;	/* struct tm_cfg_copyres */
	GArray *engines;	/* struct tm_cfg_engine */
	char *report;		/* may be NULL */
	char *shm;		/* may be NULL */
	/*
	 * Not from the file: the plugin's one vCPU is the only requester
	 * on the fabric (no other host): tm_fabric_build marks every target.
	 */
	bool solo;
};

/* Defaults, then the file. On error: false and *err "FILE:LINE: what". */
bool tm_config_load(const char *path, struct tm_config *c, char **err);
bool tm_config_parse(const char *file, const char *text, struct tm_config *c,
		     char **err);
void tm_config_clear(struct tm_config *c);

/*
 * The fabric this host sees: resources in @s (shared with other hosts by
 * name; each counts what every requester moved through it), targets and
 * regions. Free with tm_fabric_free().
 */
struct mf_fabric *tm_fabric_build(const struct tm_config *c,
				  struct tm_shared *s, char **err);
void tm_fabric_free(struct mf_fabric *f);

#endif
