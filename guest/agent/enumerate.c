// SPDX-License-Identifier: MIT
/*
 * enumerate: the guest's view of the CXL fabric, through libcxl (memdevs,
 * ports, decoders, regions) and libdaxctl (what each region became), plus
 * the NUMA nodes from sysfs. Memdev serials are the key the host uses to
 * match this view against its topology.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cxl/libcxl.h>
#include <daxctl/libdaxctl.h>

#include "agent.h"
#include "json_util.h"

#define CXL_DEVICES "/sys/bus/cxl/devices"
#define NODE_DIR "/sys/devices/system/node"

/* An access class: latency in ns, bandwidth in MB/s (kernel ABI units). */
static json_object *access_json(const char *dir)
{
	static const char *const keys[] = { "read_latency", "write_latency",
					    "read_bandwidth", "write_bandwidth" };
	json_object *o = NULL;
	char path[768];
	size_t i;

	for (i = 0; i < 4; i++) {
		long long v;

		snprintf(path, sizeof(path), "%s/%s", dir, keys[i]);
		v = sysfs_ll(path, -1);
		if (v < 0)
			continue;
		if (!o)
			o = json_object_new_object();
		jadd_int(o, keys[i], v);
	}
	return o;
}

static void add_access(json_object *o, const char *dir, const char *name,
		       const char *key)
{
	char path[512];
	json_object *a;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	a = access_json(path);
	if (a)
		json_object_object_add(o, key, a);
}

static json_object *memdev_json(struct cxl_memdev *m)
{
	json_object *o = json_object_new_object();
	struct cxl_endpoint *ep = cxl_memdev_get_endpoint(m);

	jadd_str(o, "name", cxl_memdev_get_devname(m));
	jadd_int(o, "serial", (long long)cxl_memdev_get_serial(m));
	jadd_int(o, "ram_bytes", cxl_memdev_get_ram_size(m));
	jadd_int(o, "pmem_bytes", cxl_memdev_get_pmem_size(m));
	jadd_str(o, "host", cxl_memdev_get_host(m));
	jadd_bool(o, "enabled", cxl_memdev_is_enabled(m));
	if (ep) {
		struct cxl_port *parent = cxl_endpoint_get_parent(ep);

		jadd_str(o, "endpoint", cxl_endpoint_get_devname(ep));
		if (parent)
			jadd_str(o, "port", cxl_port_get_devname(parent));
	}
	return o;
}

static const char *decoder_kind(struct cxl_port *port)
{
	if (cxl_port_is_root(port))
		return "root";
	if (cxl_port_is_endpoint(port))
		return "endpoint";
	return "switch";
}

static void add_decoders(json_object *arr, struct cxl_port *port)
{
	struct cxl_decoder *d;

	cxl_decoder_foreach(port, d) {
		json_object *o = json_object_new_object();
		const char *kind = decoder_kind(port);

		jadd_str(o, "name", cxl_decoder_get_devname(d));
		jadd_str(o, "kind", kind);
		jadd_str(o, "port", cxl_port_get_devname(port));
		jadd_int(o, "start", cxl_decoder_get_resource(d));
		jadd_int(o, "size", cxl_decoder_get_size(d));
		jadd_int(o, "ways", cxl_decoder_get_interleave_ways(d));
		jadd_int(o, "granularity", cxl_decoder_get_interleave_granularity(d));
		if (!strcmp(kind, "root")) {
			jadd_bool(o, "volatile_capable",
				  cxl_decoder_is_volatile_capable(d));
			jadd_bool(o, "pmem_capable", cxl_decoder_is_pmem_capable(d));
		}
		if (!strcmp(kind, "endpoint")) {
			struct cxl_memdev *m = cxl_decoder_get_memdev(d);

			jadd_str(o, "mode",
				 cxl_decoder_mode_name(cxl_decoder_get_mode(d)));
			jadd_int(o, "dpa_size", cxl_decoder_get_dpa_size(d));
			if (m)
				jadd_int(o, "serial",
					 (long long)cxl_memdev_get_serial(m));
		}
		json_object_array_add(arr, o);
	}
}

/* The dax device a region became, and what it is now. */
static void add_dax(json_object *o, struct daxctl_ctx *dctx, int region_id)
{
	struct daxctl_region *dr;
	struct daxctl_dev *dev;

	daxctl_region_foreach(dctx, dr) {
		if (daxctl_region_get_id(dr) != region_id)
			continue;
		daxctl_dev_foreach(dr, dev) {
			struct daxctl_memory *mem;

			if (!daxctl_dev_get_size(dev))
				continue;
			jadd_str(o, "dax", daxctl_dev_get_devname(dev));
			jadd_int(o, "node", daxctl_dev_get_target_node(dev));
			mem = daxctl_dev_get_memory(dev);
			jadd_str(o, "mode", mem ? "ram" : "devdax");
			jadd_bool(o, "online",
				  mem ? daxctl_memory_is_online(mem) > 0 :
				  daxctl_dev_is_enabled(dev));
			if (mem)
				jadd_bool(o, "movable",
					  daxctl_memory_is_movable(mem) > 0);
			return;
		}
	}
}

static json_object *region_json(struct cxl_region *r, struct daxctl_ctx *dctx)
{
	json_object *o = json_object_new_object();
	json_object *targets = json_object_new_array();
	const char *name = cxl_region_get_devname(r);
	unsigned int i, ways = cxl_region_get_interleave_ways(r);
	char dir[256], path[320], buf[64];

	snprintf(dir, sizeof(dir), CXL_DEVICES "/%s", name);
	jadd_str(o, "name", name);
	jadd_str(o, "decoder",
		 cxl_decoder_get_devname(cxl_region_get_decoder(r)));
	snprintf(path, sizeof(path), "%s/mode", dir);
	/* libcxl 76 has no region mode accessor: sysfs has it. */
	if (sysfs_read(path, buf, sizeof(buf)) == 0)
		jadd_str(o, "cxl_mode", buf);
	jadd_str(o, "mode", NULL);	/* filled by add_dax() */
	jadd_int(o, "start", cxl_region_get_resource(r));
	jadd_int(o, "size", cxl_region_get_size(r));
	jadd_int(o, "ways", ways);
	jadd_int(o, "granularity", cxl_region_get_interleave_granularity(r));
	jadd_bool(o, "committed", cxl_region_decode_is_committed(r));
	jadd_bool(o, "enabled", cxl_region_is_enabled(r));
	for (i = 0; i < ways && ways != (unsigned int)-1; i++) {
		struct cxl_decoder *d = cxl_region_get_target_decoder(r, i);
		struct cxl_memdev *m = d ? cxl_decoder_get_memdev(d) : NULL;

		json_object_array_add(targets, m ?
			json_object_new_int64((long long)cxl_memdev_get_serial(m)) :
			NULL);
	}
	json_object_object_add(o, "targets", targets);
	jadd_str(o, "dax", NULL);
	jadd_int(o, "node", -1);
	jadd_bool(o, "online", 0);
	if (dctx)
		add_dax(o, dctx, cxl_region_get_id(r));
	add_access(o, dir, "access0", "access0");
	add_access(o, dir, "access1", "access1");
	return o;
}

/* "Node 1 MemTotal:  1048576 kB" from the node's meminfo. */
long long node_mem_bytes(int node)
{
	char path[128], line[256];
	long long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), NODE_DIR "/node%d/meminfo", node);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Node %*d MemTotal: %lld kB", &kb) == 1)
			break;
	fclose(f);
	return kb < 0 ? -1 : kb * 1024;
}

static json_object *enumerate_nodes(void)
{
	json_object *arr = json_object_new_array();
	struct dirent **names;
	int i, n;

	n = scandir(NODE_DIR, &names, NULL, versionsort);
	for (i = 0; i < n; i++) {
		char path[512], buf[1024];
		json_object *o, *dist;
		int node;

		if (sscanf(names[i]->d_name, "node%d", &node) != 1) {
			free(names[i]);
			continue;
		}
		o = json_object_new_object();
		jadd_int(o, "node", node);
		snprintf(path, sizeof(path), NODE_DIR "/node%d/cpulist", node);
		if (sysfs_read(path, buf, sizeof(buf)) < 0)
			buf[0] = '\0';
		jadd_str(o, "kind", buf[0] ? "local" : "cxl");	/* refined by caller */
		jadd_int(o, "mem_bytes", node_mem_bytes(node));
		jadd_str(o, "cpus", buf);
		dist = json_object_new_array();
		snprintf(path, sizeof(path), NODE_DIR "/node%d/distance", node);
		if (sysfs_read(path, buf, sizeof(buf)) == 0) {
			char *save, *tok;

			for (tok = strtok_r(buf, " ", &save); tok;
			     tok = strtok_r(NULL, " ", &save))
				json_object_array_add(dist,
					json_object_new_int(atoi(tok)));
		}
		json_object_object_add(o, "distances", dist);
		snprintf(path, sizeof(path), NODE_DIR "/node%d/access0/initiators", node);
		add_access(o, path, ".", "access0");
		snprintf(path, sizeof(path), NODE_DIR "/node%d/access1/initiators", node);
		add_access(o, path, ".", "access1");
		json_object_array_add(arr, o);
		free(names[i]);
	}
	if (n >= 0)
		free(names);
	return arr;
}

/* A node is "cxl" when a CXL region's memory was onlined into it. */
static void mark_cxl_nodes(json_object *nodes, json_object *regions)
{
	size_t i, j;

	for (i = 0; i < json_object_array_length(regions); i++) {
		json_object *r = json_object_array_get_idx(regions, i), *v;
		int node;

		if (!json_object_object_get_ex(r, "node", &v))
			continue;
		node = json_object_get_int(v);
		for (j = 0; j < json_object_array_length(nodes); j++) {
			json_object *n = json_object_array_get_idx(nodes, j), *nv;

			if (json_object_object_get_ex(n, "node", &nv) &&
			    json_object_get_int(nv) == node)
				jadd_str(n, "kind", "cxl");
		}
	}
}

json_object *cmd_enumerate(json_object *args, char *err)
{
	json_object *res, *memdevs, *ports, *decoders, *regions, *nodes;
	struct daxctl_ctx *dctx = NULL;
	struct cxl_memdev *m;
	struct cxl_ctx *ctx;
	struct cxl_bus *bus;
	int switches = 0;

	/* A fresh context each time: libcxl caches what it has walked. */
	if (cxl_new(&ctx) < 0) {
		snprintf(err, ERRLEN, "libcxl: cxl_new failed (is cxl_acpi loaded?)");
		return NULL;
	}
	if (daxctl_new(&dctx) < 0)
		dctx = NULL;
	memdevs = json_object_new_array();
	ports = json_object_new_array();
	decoders = json_object_new_array();
	regions = json_object_new_array();

	cxl_memdev_foreach(ctx, m)
		json_object_array_add(memdevs, memdev_json(m));

	cxl_bus_foreach(ctx, bus) {
		struct cxl_port *root = cxl_bus_get_port(bus), *port;
		struct cxl_decoder *d;

		add_decoders(decoders, root);
		cxl_decoder_foreach(root, d) {
			struct cxl_region *r;

			cxl_region_foreach(d, r)
				json_object_array_add(regions, region_json(r, dctx));
		}
		cxl_port_foreach_all(root, port) {
			json_object *o = json_object_new_object();
			struct cxl_port *parent = cxl_port_get_parent(port);
			struct cxl_endpoint *ep;
			int depth = cxl_port_get_depth(port);

			jadd_str(o, "name", cxl_port_get_devname(port));
			jadd_str(o, "host", cxl_port_get_host(port));
			jadd_int(o, "depth", depth);
			jadd_str(o, "kind", depth == 1 ? "hostbridge" : "switch");
			jadd_str(o, "parent",
				 parent ? cxl_port_get_devname(parent) : NULL);
			jadd_int(o, "nr_dports", cxl_port_get_nr_dports(port));
			json_object_array_add(ports, o);
			/* Host bridges sit at depth 1; switch ports below. */
			if (depth >= 2)
				switches++;
			add_decoders(decoders, port);
			cxl_endpoint_foreach(port, ep)
				add_decoders(decoders, cxl_endpoint_get_port(ep));
		}
	}
	nodes = enumerate_nodes();
	mark_cxl_nodes(nodes, regions);

	res = json_object_new_object();
	json_object_object_add(res, "memdevs", memdevs);
	json_object_object_add(res, "ports", ports);
	jadd_int(res, "switches", switches);
	json_object_object_add(res, "decoders", decoders);
	json_object_object_add(res, "regions", regions);
	json_object_object_add(res, "nodes", nodes);
	json_object_object_add(res, "tiers", tiers_json());
	json_object_object_add(res, "acpi", acpi_numa_tables_json());
	if (dctx)
		daxctl_unref(dctx);
	cxl_unref(ctx);
	return res;
}
