/* SPDX-License-Identifier: MIT */
/*
 * Tier discovery: CXL regions through libcxl (which memdevs, by serial),
 * what each region became through sysfs (a dax device onlined by kmem as
 * a NUMA node, or a bare devdax device), and the nodes' sizes, access
 * figures and memory tiers from /sys/devices/system/node and
 * /sys/devices/virtual/memory_tiering. Local DRAM is every node with
 * memory that no CXL region feeds.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cxl/libcxl.h>

#include "cxlpool.h"
#include "sysfs.h"

#define NODE_DIR "/sys/devices/system/node"
#define TIER_DIR "/sys/devices/virtual/memory_tiering"

const char *cxlpool_kind_name(enum cxlpool_kind k)
{
	switch (k) {
	case CXLPOOL_LOCAL: return "local";
	case CXLPOOL_CXL: return "cxl";
	case CXLPOOL_DAX: return "dax";
	}
	return "?";
}

static int memtier_of(int node)
{
	DIR *d = opendir(TIER_DIR);
	struct dirent *e;
	int tier = -1;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char list[128];

		if (strncmp(e->d_name, "memory_tier", 11) ||
		    cp_readf(list, sizeof(list), TIER_DIR "/%s/nodelist", e->d_name))
			continue;
		if (cp_list_has(list, node)) {
			tier = atoi(e->d_name + 11);
			break;
		}
	}
	closedir(d);
	return tier;
}

static void node_figures(struct cxlpool_tier *t)
{
	long long v;

	t->size = (uint64_t)(cp_node_meminfo(t->node, "MemTotal") > 0 ?
			     cp_node_meminfo(t->node, "MemTotal") : 0);
	v = cp_node_meminfo(t->node, "MemFree");
	t->free = v > 0 ? (uint64_t)v : 0;
	t->read_latency_ns = (unsigned)cp_read_llf(0, NODE_DIR "/node%d/access0/initiators/read_latency", t->node);
	t->write_latency_ns = (unsigned)cp_read_llf(0, NODE_DIR "/node%d/access0/initiators/write_latency", t->node);
	t->read_mbps = (unsigned)cp_read_llf(0, NODE_DIR "/node%d/access0/initiators/read_bandwidth", t->node);
	t->write_mbps = (unsigned)cp_read_llf(0, NODE_DIR "/node%d/access0/initiators/write_bandwidth", t->node);
	t->memtier = memtier_of(t->node);
}

/* The dax device of a region: /sys/bus/cxl/devices/regionN/dax_regionN/daxN.M */
static int region_dax(const char *region, char *dax, size_t len)
{
	char dir[256];
	struct dirent *e;
	DIR *d;
	int found = -1;

	snprintf(dir, sizeof(dir), "/sys/bus/cxl/devices/%s/dax_%s", region, region);
	d = opendir(dir);
	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, "dax", 3) && strchr(e->d_name, '.') &&
		    strlen(e->d_name) < len &&
		    cp_read_llf(0, "/sys/bus/dax/devices/%s/size", e->d_name) > 0) {
			memcpy(dax, e->d_name, strlen(e->d_name) + 1);
			found = 0;
			break;
		}
	closedir(d);
	return found;
}

/* kmem bound: the region's memory is a NUMA node; else a devdax device. */
static bool dax_is_ram(const char *dax)
{
	char link[256], target[256];
	ssize_t n;

	snprintf(link, sizeof(link), "/sys/bus/dax/devices/%s/driver", dax);
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return false;
	target[n] = '\0';
	return strstr(target, "/kmem") != NULL;
}

static int add_regions(struct cxlpool_tier *t, int n, int max, int *cxl_nodes,
		       int *ncxl)
{
	struct cxl_ctx *ctx;
	struct cxl_bus *bus;

	if (cxl_new(&ctx) < 0)
		return n;
	cxl_bus_foreach(ctx, bus) {
		struct cxl_port *root = cxl_bus_get_port(bus);
		struct cxl_decoder *d;

		cxl_decoder_foreach(root, d) {
			struct cxl_region *r;

			cxl_region_foreach(d, r) {
				struct cxlpool_tier x = { .node = -1, .memtier = -1 };
				unsigned int ways = cxl_region_get_interleave_ways(r);

				snprintf(x.region, sizeof(x.region), "%s",
					 cxl_region_get_devname(r));
				for (unsigned int i = 0; i < ways && ways != UINT_MAX &&
				     x.nserials < CXLPOOL_MAX_SERIALS; i++) {
					struct cxl_decoder *td = cxl_region_get_target_decoder(r, i);
					struct cxl_memdev *m = td ? cxl_decoder_get_memdev(td) : NULL;

					if (m)
						x.serials[x.nserials++] = cxl_memdev_get_serial(m);
				}
				if (region_dax(x.region, x.dax, sizeof(x.dax)))
					continue;	/* not set up (yet) */
				if (dax_is_ram(x.dax)) {
					x.kind = CXLPOOL_CXL;
					x.node = (int)cp_read_llf(-1, "/sys/bus/dax/devices/%s/target_node", x.dax);
					if (x.node < 0)
						continue;
					node_figures(&x);
					if (*ncxl < CXLPOOL_MAX_TIERS)
						cxl_nodes[(*ncxl)++] = x.node;
				} else {
					x.kind = CXLPOOL_DAX;
					x.size = (uint64_t)cp_read_llf(0, "/sys/bus/dax/devices/%s/size", x.dax);
					x.free = x.size;
				}
				if (n < max)
					t[n++] = x;
			}
		}
	}
	cxl_unref(ctx);
	return n;
}

static int cmp_tier(const void *a, const void *b)
{
	const struct cxlpool_tier *x = a, *y = b;

	if (x->kind != y->kind)
		return (int)x->kind - (int)y->kind;
	return x->node - y->node;
}

int cxlpool_tiers(struct cxlpool_tier *t, int max)
{
	char mem[256];
	int cxl_nodes[CXLPOOL_MAX_TIERS], ncxl = 0, n = 0;

	if (cp_read(NODE_DIR "/has_memory", mem, sizeof(mem)))
		return -1;
	n = add_regions(t, 0, max, cxl_nodes, &ncxl);
	/* Local: nodes with memory that no region feeds. Two regions may
	 * share a node (one window): the node is listed once per region. */
	for (int node = 0; node < 1024 && n < max; node++) {
		bool is_cxl = false;

		if (!cp_list_has(mem, node))
			continue;
		for (int i = 0; i < ncxl; i++)
			is_cxl |= cxl_nodes[i] == node;
		if (is_cxl)
			continue;
		t[n] = (struct cxlpool_tier){ .kind = CXLPOOL_LOCAL, .node = node };
		node_figures(&t[n]);
		n++;
	}
	qsort(t, (size_t)n, sizeof(*t), cmp_tier);
	return n;
}
