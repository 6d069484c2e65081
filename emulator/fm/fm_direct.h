/* SPDX-License-Identifier: MIT */
/*
 * What the fault injector (emulator/faults) may ask of the fabric manager:
 * the FM owns the hosts' FM channels (QMP monitor, agent port) and the
 * ownership map, so faults act through it, in its worker thread
 * (docs/faults.md). Nothing here takes a host's consent: that is the point.
 */
#ifndef CXLBED_FM_DIRECT_H
#define CXLBED_FM_DIRECT_H

#include "fm/fm.h"

#include <json-glib/json-glib.h>

/* A bound LD as the injector sees it. */
struct fm_ld_at {
	char *ld, *pool, *host;
	uint64_t serial;
	uint64_t offset, size;	/* its slice of the pool file */
	uint64_t base;		/* host physical address in its guest */
};
void fm_ld_at_free(gpointer p);

/* LDs bound now (of @pool; NULL: every pool), struct fm_ld_at *. */
GPtrArray *fm_bound_lds(struct fm *fm, const char *pool);
/* The pool's backing file (the bytes every host maps). */
char *fm_pool_path(struct fm *fm, const char *pool);

/* QMP on @host's FM monitor; the reply's "return", or NULL and why. */
JsonNode *fm_host_qmp(struct fm *fm, const char *host, const char *cmd,
		      JsonObject *args, GError **error);
/* A request to @host's agent on the FM port; its result, or NULL. */
JsonObject *fm_host_agent(struct fm *fm, const char *host, const char *cmd,
			  JsonObject *args, int timeout_s, GError **error);

/*
 * Take @ld from its host without the release handshake: QMP device_del
 * now (the guest's pciehp removes it about 5 s later); the map holds it
 * as failing until QEMU no longer lists it, then as failed (@dead: its
 * pool node is dead) or, revoked, scrubbed (zeroed) and free again.
 */
bool fm_surprise_remove(struct fm *fm, const char *ld, bool dead, GError **error);
/* Pool node @pool is dead: its free LDs are failed too, never bound. */
void fm_pool_dead(struct fm *fm, const char *pool);
/* Removals under way, for the worker's tick: finish those QEMU completed. */
void fm_faults_poll(struct fm *fm);
/* How many surprise removals are still under way. */
guint fm_removals_pending(struct fm *fm);

#endif
