/* SPDX-License-Identifier: MIT */
/* Shared between parse.c, validate.c and topology.c; not part of the API. */
#ifndef CXLBED_TOPOLOGY_PRIV_H
#define CXLBED_TOPOLOGY_PRIV_H

#include "topology/topology.h"
#include "common/cfgfile.h"

/* Defaults (documented in docs/topology.md). */
#define TOPO_DEF_CPUS 1
#define TOPO_DEF_HOST_MEMORY (1ull * CB_GIB)
#define TOPO_DEF_DRAM_RLAT 90.0
#define TOPO_DEF_DRAM_WLAT 90.0
#define TOPO_DEF_DRAM_RGBPS 40.0
#define TOPO_DEF_DRAM_WGBPS 30.0
/* a line served from another core's L2 (docs/timing-model.md, "Caches") */
#define TOPO_DEF_SNOOP_LAT 50.0
#define TOPO_DEF_BRIDGE_LAT 10.0
#define TOPO_DEF_BRIDGE_GBPS 64.0
#define TOPO_DEF_SWITCH_LAT 50.0
#define TOPO_DEF_SWITCH_PORTS 4
#define TOPO_MAX_SWITCH_PORTS 8
#define TOPO_MAX_ROOTPORTS 8
#define TOPO_DEF_LINK_WIDTH 16
#define TOPO_DEF_DEV_LINK_WIDTH 16
#define TOPO_DEF_LINK_SPEED 32.0
#define TOPO_DEF_LINK_LAT 5.0
#define TOPO_DEF_DEV_RLAT 150.0
#define TOPO_DEF_DEV_WLAT 160.0
#define TOPO_DEF_DEV_RGBPS 20.0
#define TOPO_DEF_DEV_WGBPS 18.0
#define TOPO_DEF_GRANULARITY 4096u
#define TOPO_SERIAL_BASE 0x1000ull
#define TOPO_MAX_CASCADE 4
#define TOPO_MAX_CPUS 64
/*
 * Ranges of figures (docs/topology.md). Capacities: 1 TiB is past what a
 * q35 guest with TCG's 40 physical address bits can map (the address map
 * check in emulator/qemu/address_map.c is exact); it keeps sums of sizes
 * far from 2^64. Latencies: up to 1 ms; bandwidths: from 1 MB/s (the unit
 * of CDAT and HMAT) to 10 TB/s. Caches: the timing model holds 16 bytes
 * per line, and needs a set of its widest ways (16 x 256-byte lines).
 */
#define TOPO_MAX_CAPACITY (1024ull * CB_GIB)
#define TOPO_MAX_NS 1e6
#define TOPO_MIN_GBPS 0.001
#define TOPO_MAX_GBPS 10000.0
#define TOPO_MIN_CACHE (4ull * 1024)

enum topo_kind {
	TK_HOST, TK_BRIDGE, TK_ROOTPORT, TK_SWITCH, TK_DEVICE, TK_WINDOW,
	TK_REGION, TK_POOL, TK_COUNT
};

/* Parse state: objects plus the section each came from. */
struct topo_ctx {
	struct cb_topology *t;
	struct cfg_file *cfg;
	GHashTable *ids;	/* id -> struct topo_obj * (every kind) */
	GHashTable *of_obj;	/* object -> its struct topo_obj * */
	GPtrArray *objs;	/* struct topo_obj *, file order */
	/* how many of each kind, and the first: the default reference */
	guint count[TK_COUNT];
	struct topo_obj *first[TK_COUNT];
};

struct topo_obj {
	enum topo_kind kind;
	struct cfg_section *sec;
	void *obj;
	/* References by name, resolved once every section is read. */
	const char *ref;	/* host, bridge, port or window */
	const char *ref2;	/* device: pool */
	char **list;		/* window: targets; region: devices */
};

void topo_obj_free(gpointer p);
bool topo_parse_sections(struct topo_ctx *c, GError **error);
bool topo_validate(struct topo_ctx *c, GError **error);
/* derive.c: values the file leaves out; never fails. */
void topo_derive(struct cb_topology *t);
/* path.c */
void topo_derive_paths(struct cb_topology *t);
void topo_path_free(struct cb_path *p);
struct cb_path *topo_derive_path(const struct cb_device *d);

/* Line of KEY in SEC, or the section's line when the key is absent. */
int topo_key_line(const struct cfg_section *sec, const char *key);
const char *topo_kind_name(enum topo_kind k);
/* Usable GB/s of one direction of a link: width x speed, less encoding. */
double topo_link_derived_gbps(int width, double speed_gts);
bool topo_valid_granularity(uint64_t g);
/* Set a CXLBED_ERROR_INPUT "FILE:LINE: ..." error; returns false. */
bool topo_fail(GError **error, const char *file, int line, const char *fmt,
	       ...) G_GNUC_PRINTF(4, 5);

#endif
