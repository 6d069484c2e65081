/* SPDX-License-Identifier: MIT */
/*
 * The fabric graph: what a topology file describes, parsed and validated.
 *
 * Objects are plain read-only structs once topology_load() returns; walk
 * them with the foreach macros and find them with topology_find_*().
 * Every object remembers where it was defined (file, line) so later stages
 * (run-time enumeration checks, reports) can point at the topology.
 *
 * The shape (see docs/topology.md):
 *   host -> bridge (pxb-cxl) -> rootport (cxl-rp) -> switch | device
 *   switch -> downstream ports -> switch | device       (cascades allowed)
 *   window (CFMW) on a host targets bridges; region interleaves devices
 *   under a window; pool = one backing file shared by devices of several
 *   hosts (each host's QEMU maps the same bytes).
 */
#ifndef CXLBED_TOPOLOGY_H
#define CXLBED_TOPOLOGY_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "topology/kernel_spec.h"

#define CB_MIB (1024ull * 1024)
#define CB_GIB (1024ull * CB_MIB)
/* CXL HDM decoders and QEMU's type-3 device work in 256 MiB units. */
#define CB_CAPACITY_UNIT (256ull * CB_MIB)

struct cb_src {
	const char *file;	/* owned by the topology */
	int line;
};

/* Performance of a memory (local DRAM or a type-3 device's media). */
struct cb_mem_perf {
	double read_latency_ns;
	double write_latency_ns;
	double read_gbps;
	double write_gbps;
};

/* A link between a port and what hangs below it (PCIe/CXL). */
struct cb_link {
	int width;		/* lanes: 1, 2, 4, 8, 16 */
	double speed_gts;	/* 2.5 .. 64 GT/s */
	double latency_ns;	/* one traversal, both directions */
	double gbps;		/* usable bandwidth per direction; derived
				 * from width x speed when not given */
	double qos_gbps;	/* `qos-gbps`: cap on the owning host's traffic */
	/* Per-host caps on a shared link (QoS), GB/s; 0 = none. */
	GHashTable *host_caps_gbps;	/* host id -> double* */
};

/* Cache sizes the timing model puts in front of memory. */
struct cb_cache_cfg {
	uint64_t l1_bytes, l2_bytes, llc_bytes;	/* l1/l2 per vCPU, llc per host */
	int line_bytes;
	int max_outstanding_misses;		/* per vCPU */
	double snoop_latency_ns;		/* a line from another vCPU's L2 */
};

enum cb_port_kind { CB_PORT_ROOT, CB_PORT_DOWNSTREAM };
enum cb_node_kind { CB_NODE_NONE, CB_NODE_SWITCH, CB_NODE_DEVICE };
enum cb_region_mode { CB_REGION_RAM, CB_REGION_DEVDAX };

struct cb_host;
struct cb_bridge;
struct cb_switch;
struct cb_device;
struct cb_pool;

/* A root port or a switch downstream port: where a switch or device plugs in. */
struct cb_port {
	char *id;		/* "rp0" or "sw0.p2" (switch ports are generated) */
	struct cb_src src;
	enum cb_port_kind kind;
	int number;		/* port number on its bridge / switch */
	struct cb_bridge *bridge;	/* always set: the bridge above */
	struct cb_switch *parent_switch;	/* downstream ports only */
	bool hotplug;		/* may be empty at boot, filled at run time */
	enum cb_node_kind child_kind;
	union {
		struct cb_switch *sw;
		struct cb_device *dev;
	} child;
};

struct cb_switch {
	char *id;
	struct cb_src src;
	struct cb_host *host;
	struct cb_port *upstream;	/* the port it plugs into */
	struct cb_link link;	/* link above it */
	double latency_ns;	/* one traversal of the switch */
	int nports;
	struct cb_port **ports;	/* downstream ports [nports] */
	int level;		/* 1 = directly under a root port */
};

struct cb_device {
	char *id;
	struct cb_src src;
	struct cb_host *host;
	struct cb_port *port;	/* the port it plugs into */
	struct cb_link link;	/* link above it */
	bool persistent;
	uint64_t size;
	uint64_t serial;	/* unique across the topology */
	bool serial_given;	/* set in the file (else derived) */
	struct cb_mem_perf perf;	/* media latency/bandwidth */
	struct cb_region *region;	/* the region it is in, or NULL */
	struct cb_pool *pool;	/* NULL: private RAM backing */
	uint64_t pool_offset;	/* slice of the pool file */
	bool pool_offset_given;	/* set in the file (else derived) */
	struct cb_path *path;	/* derived: the way up to the host (path.h) */
};

struct cb_bridge {
	char *id;
	struct cb_src src;
	struct cb_host *host;
	double latency_ns;	/* host bridge traversal */
	GPtrArray *rootports;	/* struct cb_port * */
	double gbps;		/* CPU <-> host bridge bandwidth */
};

struct cb_window {
	char *id;
	struct cb_src src;
	struct cb_host *host;
	int index;		/* position among the host's windows: cxl-fmw.N,
				 * and the guest's root decoder decoder0.N */
	uint64_t size;
	uint32_t granularity;	/* bytes; host-bridge interleave granularity */
	GPtrArray *bridges;	/* struct cb_bridge *: the targets, in order */
};

struct cb_region {
	char *id;
	struct cb_src src;
	struct cb_window *window;
	enum cb_region_mode mode;
	uint32_t granularity;	/* bytes */
	GPtrArray *devices;	/* struct cb_device *: interleave order */
	uint64_t size;		/* derived: ways x per-device capacity used */
	char *path_text;	/* derived: "hb0/rp0/sw0/{mem0,mem1}" */
};

/*
 * A logical device (LD) of a lending pool: one ld-size slice of the pool's
 * file that the fabric manager binds to one host at a time, as a
 * cxl-type3 on a free hotplug port of that host (emulator/fm/).
 */
struct cb_ld {
	char *id;		/* "p0.ld3": also its QEMU device id */
	struct cb_pool *pool;
	int index;		/* 0 .. nlds-1 */
	uint64_t offset;	/* slice of the pool file: index x ld_size */
	uint64_t size;
	uint64_t serial;	/* sn= of every binding (derived, unique) */
};

struct cb_pool {
	char *id;
	struct cb_src src;
	uint64_t size;
	bool persistent;
	char *file;		/* backing file; NULL: the run creates one */
	GPtrArray *devices;	/* struct cb_device *: one per attached host */
	bool shared;		/* devices map the same bytes (default); off:
				 * each device gets its own slice */
	/* Lending (ld-size given): the pool is carved into LDs. */
	uint64_t ld_size;	/* 0: the pool lends nothing */
	GPtrArray *lds;		/* struct cb_ld * */
	GPtrArray *ld_hosts;	/* struct cb_host *: who may receive its LDs */
	struct cb_mem_perf perf;	/* its media, every LD's */
	struct cb_link ld_link;	/* the link between a port and a bound LD */
};

struct cb_host {
	char *id;
	struct cb_src src;
	int index;		/* position in the file: 0, 1, ... */
	int cpus;
	uint64_t memory;	/* local DRAM */
	struct cb_mem_perf local;	/* local DRAM performance */
	struct cb_cache_cfg cache;
	GPtrArray *bridges;	/* struct cb_bridge * */
	GPtrArray *windows;	/* struct cb_window * */
	GPtrArray *regions;	/* struct cb_region * */
	GPtrArray *devices;	/* struct cb_device *: every device under it */
	GPtrArray *switches;	/* struct cb_switch * */
	/* copy engines (docs/kv-share.md): RDMA NICs in the order of
	 * `nics`, then a DMA engine if `dma-engine = on` */
	GPtrArray *nics;	/* const struct cb_copy_preset * */
	bool dma_engine;
};

struct cb_topology {
	char *file;
	char *name;		/* [topology] name = ..., else file basename */
	char *description;
	GPtrArray *hosts;	/* struct cb_host *, file order */
	GPtrArray *bridges, *ports, *switches, *devices, *windows, *regions,
		*pools;
	GPtrArray *lds;		/* struct cb_ld *, every lending pool's */
	struct cb_kernel_spec *kernel;	/* [topology] kernel =, or NULL */
};

/*
 * Load and validate. On any problem: NULL and *error (CXLBED_ERROR_INPUT)
 * whose message starts "FILE:LINE: " and says what would fix it.
 */
struct cb_topology *topology_load(const char *path, GError **error);
struct cb_topology *topology_parse(const char *path, const char *text,
				   GError **error);
/* The same for @len bytes that may hold anything (a NUL is an error). */
struct cb_topology *topology_parse_len(const char *path, const char *text,
				       gssize len, GError **error);
void topology_free(struct cb_topology *t);
typedef struct cb_topology cb_topology;
G_DEFINE_AUTOPTR_CLEANUP_FUNC(cb_topology, topology_free)

struct cb_host *topology_find_host(const struct cb_topology *t, const char *id);
struct cb_device *topology_find_device(const struct cb_topology *t,
				       const char *id);
struct cb_bridge *topology_find_bridge(const struct cb_topology *t,
				       const char *id);
struct cb_port *topology_find_port(const struct cb_topology *t, const char *id);
struct cb_switch *topology_find_switch(const struct cb_topology *t,
				       const char *id);
struct cb_window *topology_find_window(const struct cb_topology *t,
				       const char *id);
struct cb_region *topology_find_region(const struct cb_topology *t,
				       const char *id);
struct cb_pool *topology_find_pool(const struct cb_topology *t, const char *id);
struct cb_ld *topology_find_ld(const struct cb_topology *t, const char *id);

/*
 * Pool lending (lds.c). An LD port: a root port with hotplug = on and
 * nothing plugged at boot. Only root ports: QEMU 10.0.2's cxl-downstream
 * has no slot power controller, so a device added under a switch can be
 * detached by the guest but never removed (docs/pooling.md). The LD
 * window of a port: a window of the host that targets exactly that
 * port's bridge (a 1-way region needs one target).
 */
bool topology_port_takes_ld(const struct cb_port *p);
/* The host's LD ports, in topology order (caller unrefs). */
GPtrArray *topology_host_ld_ports(const struct cb_topology *t,
				  const struct cb_host *h);
/* Windows of @h that can hold an LD bound on @p, in file order (caller unrefs). */
GPtrArray *topology_ld_windows(const struct cb_port *p);
/* Bytes of window @w not taken by the topology's own regions. */
uint64_t topology_window_room(const struct cb_topology *t,
			      const struct cb_window *w);
/* Does pool @p lend to host @h? */
bool topology_pool_lends_to(const struct cb_pool *p, const struct cb_host *h);
bool topology_has_lending(const struct cb_topology *t);

/*
 * LD @ld bound on port @p: a device as if the file had placed it there
 * (pool media, the pool's ld link, the LD's slice and serial), with its
 * path derived by path.c like every other device's. The caller owns it.
 */
struct cb_device *topology_ld_device(const struct cb_ld *ld,
				     const struct cb_port *p);
void topology_ld_device_free(struct cb_device *d);

/* The host bridge a device or switch sits under. */
struct cb_bridge *topology_device_bridge(const struct cb_device *d);

/* Region a device belongs to, or NULL. */
struct cb_region *topology_device_region(const struct cb_topology *t,
					 const struct cb_device *d);

/*
 * Named memory figures from published measurements (presets.c; sources
 * in docs/timing-model.md): a device's `preset = NAME`, a host's
 * `dram-preset = NAME`. Keys given beside the preset override it.
 */
struct cb_preset {
	const char *name;
	struct cb_mem_perf perf;
	const char *what;
};

const struct cb_preset *topology_preset_find(const char *name);
const struct cb_preset *topology_presets(int *n);

/* A copy engine (docs/kv-share.md): a NIC's or a DMA engine's figures. */
struct cb_copy_preset {
	const char *name;
	double gbps;		/* achievable bandwidth */
	double latency_ns;	/* per transfer: post to completion, small */
	int depth;		/* transfers in flight */
	const char *what;
};

const struct cb_copy_preset *topology_copy_preset_find(const char *name);

/* Device-level totals the guest should see for a host. */
guint topology_host_memdev_count(const struct cb_host *h);
uint64_t topology_host_cxl_ram_bytes(const struct cb_host *h); /* RAM regions */

#define cb_foreach(arr, type, var) \
	for (guint var##_i_ = 0; \
	     (arr) && var##_i_ < (arr)->len && \
	     ((var) = (type *)g_ptr_array_index((arr), var##_i_), 1); \
	     var##_i_++)

#include "topology/path.h"

#endif
