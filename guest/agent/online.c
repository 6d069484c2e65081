// SPDX-License-Identifier: MIT
/*
 * After a region is enabled, dax_cxl gives it a dax device and, because
 * CXL dax regions prefer it, kmem binds and hot-adds the memory (online
 * movable, given memhp_default_state=online_movable). Here we wait for that
 * to finish, or turn the device into a devdax character device instead.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <daxctl/libdaxctl.h>

#include "agent.h"
#include "json_util.h"

#define ONLINE_TIMEOUT_S 60

static struct daxctl_dev *region_dax_dev(struct daxctl_ctx *ctx, int id)
{
	struct daxctl_region *dr;
	struct daxctl_dev *dev;

	daxctl_region_foreach(ctx, dr) {
		if (daxctl_region_get_id(dr) != id)
			continue;
		daxctl_dev_foreach(dr, dev)
			if (daxctl_dev_get_size(dev))
				return dev;
	}
	return NULL;
}

/* kmem took the device: give its memory back and rebind as devdax. */
static int make_devdax(struct daxctl_dev *dev, char *err)
{
	struct daxctl_memory *mem = daxctl_dev_get_memory(dev);
	const char *name = daxctl_dev_get_devname(dev);
	int rc;

	if (mem && daxctl_memory_is_online(mem) > 0) {
		rc = daxctl_memory_offline(mem);
		if (rc < 0) {
			snprintf(err, ERRLEN, "%s: offlining its memory failed (%d)",
				 name, rc);
			return -1;
		}
	}
	if (daxctl_dev_is_enabled(dev) && (rc = daxctl_dev_disable(dev)) < 0) {
		snprintf(err, ERRLEN, "%s: unbinding kmem failed (%d)", name, rc);
		return -1;
	}
	rc = daxctl_dev_enable_devdax(dev);
	if (rc < 0) {
		snprintf(err, ERRLEN, "%s: binding device_dax failed (%d)", name, rc);
		return -1;
	}
	return 0;
}

/* 1 when every memory block of the device is online, 0 if not yet. */
static int ram_online(struct daxctl_dev *dev, char *err)
{
	struct daxctl_memory *mem = daxctl_dev_get_memory(dev);
	int n;

	if (!mem) {
		/* Bound to device_dax, not kmem: ask for system-ram. */
		if (daxctl_dev_is_enabled(dev))
			daxctl_dev_disable(dev);
		if (daxctl_dev_enable_ram(dev) < 0) {
			snprintf(err, ERRLEN, "%s: binding kmem failed (is kmem loaded?)",
				 daxctl_dev_get_devname(dev));
			return -1;
		}
		return 0;
	}
	n = daxctl_memory_num_sections(mem);
	return n > 0 && daxctl_memory_is_online(mem) == n;
}

json_object *online_region(const char *region, bool devdax,
			   unsigned long long size, char *err)
{
	double deadline = mono_s() + ONLINE_TIMEOUT_S;
	const char *why = "no dax device appeared (is dax_cxl loaded?)";
	int id;

	if (sscanf(region, "region%d", &id) != 1) {
		snprintf(err, ERRLEN, "bad region name %s", region);
		return NULL;
	}
	while (mono_s() < deadline) {
		struct daxctl_ctx *ctx;
		struct daxctl_dev *dev;
		json_object *res;
		int node, rc;

		/* Fresh each round: libdaxctl caches what it has listed. */
		if (daxctl_new(&ctx) < 0) {
			snprintf(err, ERRLEN, "libdaxctl: daxctl_new failed");
			return NULL;
		}
		dev = region_dax_dev(ctx, id);
		if (!dev) {
			daxctl_unref(ctx);
			usleep(50000);
			continue;
		}
		res = json_object_new_object();
		jadd_str(res, "region", region);
		jadd_int(res, "size", size);
		jadd_str(res, "dax", daxctl_dev_get_devname(dev));
		node = daxctl_dev_get_target_node(dev);
		if (devdax) {
			rc = make_devdax(dev, err);
			jadd_str(res, "mode", "devdax");
		} else {
			rc = ram_online(dev, err);
			jadd_str(res, "mode", "ram");
			why = "its memory did not come online";
		}
		if (rc > 0 || (devdax && rc == 0)) {
			jadd_int(res, "node", node);
			if (!devdax)
				jadd_int(res, "node_mem_bytes", node_mem_bytes(node));
			jadd_double(res, "ready_uptime_s", uptime_s());
			daxctl_unref(ctx);
			agent_log("%s: %s ready (%s, node %d)", region,
				  devdax ? "devdax" : "ram",
				  json_object_get_string(json_object_object_get(res, "dax")),
				  node);
			return res;
		}
		json_object_put(res);
		daxctl_unref(ctx);
		if (rc < 0)
			return NULL;
		usleep(50000);
	}
	snprintf(err, ERRLEN, "%s: not ready after %d s: %s", region,
		 ONLINE_TIMEOUT_S, why);
	return NULL;
}
