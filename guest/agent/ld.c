// SPDX-License-Identifier: MIT
/*
 * The guest's half of the fabric manager's bind and release handshake
 * (docs/pooling.md). A logical device (LD) of a pool arrives as a
 * hot-added cxl-type3 with a known serial:
 *   attach-ld   wait for its memdev and endpoint, then a 1-way region in
 *               the window the host names (region.c), online movable as
 *               RAM or set up as devdax (online.c);
 *   release-ld  ask the pool runtime (cxlpoold, when it runs) to give
 *               the LD back, offline its memory (the kernel migrates the
 *               movable pages elsewhere), destroy the region, free the
 *               device's DPA, then eject it: power its hotplug slot off,
 *               as an OS does for a managed removal (pciehp removes the
 *               device; QEMU detaches it when the slot powers down);
 *   ld-usage    what each LD's memory holds now, for the utilisation log.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cxl/libcxl.h>
#include <daxctl/libdaxctl.h>

#include "agent.h"
#include "cxlbed-rtc.h"
#include "json_util.h"
#include "proto.h"
#include "pool_runtime.h"
#include "ld_faults.h"

#define ATTACH_TIMEOUT_S 60
#define RELEASE_TIMEOUT_S 120

static struct cxl_ctx *open_ctx(char *err)
{
	struct cxl_ctx *ctx = region_ctx_new();

	if (!ctx)
		snprintf(err, ERRLEN, "libcxl: cxl_new failed");
	return ctx;
}

/*
 * The memdev of @serial once it has a CXL endpoint, 0; or -1 after
 * @timeout_s. The device is QEMU's to add, in host time, so the wait is
 * host time (the RTC): with the modeled guest clock an idle guest's 80 s
 * passed in 14-20 host seconds under load, before QEMU had added it.
 */
static int wait_memdev(unsigned long long serial, long long timeout_s, char *devname,
		       size_t len)
{
	long long host0 = cxlbed_rtc_seconds();
	double deadline = mono_s() + (double)timeout_s;

	while (host0 >= 0 ? cxlbed_rtc_seconds() - host0 < timeout_s : mono_s() < deadline) {
		struct cxl_ctx *ctx = region_ctx_new();
		struct cxl_memdev *m = ctx ? region_memdev_by_serial(ctx, serial) : NULL;
		int found = m && cxl_memdev_get_endpoint(m) &&
			    cxl_memdev_get_ram_size(m) > 0;

		if (found)
			snprintf(devname, len, "%s", cxl_memdev_get_devname(m));
		if (ctx)
			cxl_unref(ctx);
		if (found)
			return 0;
		usleep(100000);
	}
	return -1;
}

json_object *cmd_attach_ld(json_object *args, char *err)
{
	unsigned long long serial = arg_int(args, "serial", 0);
	double t0 = mono_s();
	long long timeout_s = arg_int(args, "timeout_s", ATTACH_TIMEOUT_S);
	json_object *cargs, *res;
	char memdev[64], path[128];

	if (!serial) {
		snprintf(err, ERRLEN, "args.serial: the LD's memdev serial is required");
		return NULL;
	}
	if (wait_memdev(serial, timeout_s, memdev, sizeof(memdev)) < 0) {
		snprintf(err, ERRLEN, "no memdev with serial %llu and a CXL endpoint "
			 "after %lld s of host time: the hot-added device did not enumerate",
			 serial, timeout_s);
		return NULL;
	}
	cargs = json_object_new_object();
	jadd_str(cargs, "id", arg_str(args, "id", NULL));
	jadd_int(cargs, "window", arg_int(args, "window", 0));
	jadd_int(cargs, "ways", 1);
	jadd_int(cargs, "granularity", arg_int(args, "granularity", 4096));
	jadd_str(cargs, "mode", arg_str(args, "mode", "ram"));
	jadd_int(cargs, "size", 0);
	json_object_object_add(cargs, "serials", json_object_new_array());
	json_object_array_add(json_object_object_get(cargs, "serials"),
			      json_object_new_int64(serial));
	res = cmd_create_region(cargs, err);
	json_object_put(cargs);
	if (!res)
		return NULL;
	jadd_str(res, "memdev", memdev);
	jadd_int(res, "serial", serial);
	snprintf(path, sizeof(path), "/sys/bus/cxl/devices/%s/resource",
		 json_object_get_string(json_object_object_get(res, "region")));
	jadd_int(res, "base", sysfs_ll(path, -1));
	/* what the kernel made of the LD's CDAT and the path's HMAT */
	snprintf(path, sizeof(path), "/sys/bus/cxl/devices/%s/access0/read_latency",
		 json_object_get_string(json_object_object_get(res, "region")));
	jadd_int(res, "read_latency_ns", sysfs_ll(path, -1));
	jadd_double(res, "attach_s", mono_s() - t0);
	ld_unmask_ras(memdev, res);
	ld_registry_add(args, res);
	pool_runtime_took(serial, res);
	return res;
}

/* The region one of whose targets is @serial's endpoint decoder. */
static struct cxl_region *region_of_serial(struct cxl_ctx *ctx,
					   unsigned long long serial,
					   struct cxl_decoder **ep)
{
	struct cxl_bus *bus;

	cxl_bus_foreach(ctx, bus) {
		struct cxl_decoder *root;

		cxl_decoder_foreach(cxl_bus_get_port(bus), root) {
			struct cxl_region *r;

			cxl_region_foreach(root, r) {
				struct cxl_memdev_mapping *m;

				cxl_mapping_foreach(r, m) {
					struct cxl_decoder *d = cxl_mapping_get_decoder(m);
					struct cxl_memdev *md = d ? cxl_decoder_get_memdev(d) : NULL;

					if (md && cxl_memdev_get_serial(md) == serial) {
						*ep = d;
						return r;
					}
				}
			}
		}
	}
	return NULL;
}

static long long vmstat(const char *key)
{
	char line[256], name[128];
	long long v, found = -1;
	FILE *f = fopen("/proc/vmstat", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%127s %lld", name, &v) == 2 && !strcmp(name, key)) {
			found = v;
			break;
		}
	fclose(f);
	return found;
}

/*
 * Take the region's dax device out of use: its memory offline (the
 * kernel migrates what it holds; a busy block is retried until the
 * deadline), then the device unbound.
 */
static int retire_dax(int region_id, double deadline, json_object *res, char *err)
{
	struct daxctl_ctx *ctx;
	struct daxctl_region *dr;
	struct daxctl_dev *dev = NULL;
	struct daxctl_memory *mem;
	long long before = vmstat("pgmigrate_success");
	double t0 = mono_s();
	int rc = 0;

	if (daxctl_new(&ctx) < 0) {
		snprintf(err, ERRLEN, "libdaxctl: daxctl_new failed");
		return -1;
	}
	daxctl_region_foreach(ctx, dr)
		if (daxctl_region_get_id(dr) == region_id) {
			struct daxctl_dev *d;

			daxctl_dev_foreach(dr, d)
				if (daxctl_dev_get_size(d))
					dev = d;
		}
	if (!dev)
		goto out;	/* nothing bound: the region alone remains */
	jadd_str(res, "dax", daxctl_dev_get_devname(dev));
	mem = daxctl_dev_get_memory(dev);
	jadd_str(res, "mode", mem ? "ram" : "devdax");
	if (mem && daxctl_memory_is_online(mem) > 0) {
		jadd_int(res, "node", daxctl_dev_get_target_node(dev));
		while ((rc = daxctl_memory_offline(mem)) < 0 && mono_s() < deadline)
			usleep(200000);
		if (rc < 0) {
			snprintf(err, ERRLEN, "%s: its memory would not go offline "
				 "(%s): something pins pages there", daxctl_dev_get_devname(dev),
				 strerror(-rc));
			goto out;
		}
	}
	jadd_double(res, "offline_s", mono_s() - t0);
	if (before >= 0)
		jadd_int(res, "migrated_bytes",
			 (vmstat("pgmigrate_success") - before) * sysconf(_SC_PAGESIZE));
	if (daxctl_dev_is_enabled(dev) && (rc = daxctl_dev_disable(dev)) < 0)
		snprintf(err, ERRLEN, "%s: unbinding it failed (%s); is it still "
			 "mapped?", daxctl_dev_get_devname(dev), strerror(-rc));
out:
	daxctl_unref(ctx);
	return rc < 0 ? -1 : 0;
}

/*
 * Power off the hotplug slot @memdev (cxl memN) sits in: the slot whose
 * address is the memdev's PCI bus/device. Returns 0, or -1 when it has
 * no such slot (the host then removes it with device_del).
 */
static int eject(const char *memdev, json_object *res, char *err)
{
	char link[256], real[PATH_MAX], addr[64], path[PATH_MAX], *pci, *dot;
	double t0 = mono_s();
	struct dirent *de;
	DIR *d;
	int rc = -1;

	snprintf(link, sizeof(link), "/sys/bus/cxl/devices/%s", memdev);
	if (!realpath(link, real) || !(pci = strrchr(real, '/')))
		return -1;
	*pci = '\0';			/* .../0000:11:00.0 */
	pci = strrchr(real, '/');
	if (!pci || !(dot = strrchr(pci, '.')))
		return -1;
	*dot = '\0';			/* 0000:11:00: the slot's address */
	d = opendir("/sys/bus/pci/slots");
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/bus/pci/slots/%s/address", de->d_name);
		if (sysfs_read(path, addr, sizeof(addr)) < 0 || strcmp(addr, pci + 1))
			continue;
		snprintf(path, sizeof(path), "/sys/bus/pci/slots/%s/power", de->d_name);
		rc = sysfs_write(path, "0");
		if (rc < 0)
			snprintf(err, ERRLEN, "slot %s: powering it off: %s", de->d_name,
				 strerror(-rc));
		else
			jadd_str(res, "slot", de->d_name);
		break;
	}
	if (d)
		closedir(d);
	jadd_bool(res, "ejected", rc == 0);
	if (rc == 0)
		jadd_double(res, "eject_s", mono_s() - t0);
	return rc < 0 ? -1 : 0;
}

json_object *cmd_release_ld(json_object *args, char *err)
{
	unsigned long long serial = arg_int(args, "serial", 0);
	double t0 = mono_s();
	double deadline = t0 + arg_int(args, "timeout_s", RELEASE_TIMEOUT_S);
	struct cxl_decoder *ep = NULL;
	struct cxl_memdev *md;
	struct cxl_region *r;
	struct cxl_ctx *ctx;
	json_object *res;
	char name[64], memdev[64] = "";
	int rc;

	if (!serial) {
		snprintf(err, ERRLEN, "args.serial: the LD's memdev serial is required");
		return NULL;
	}
	ctx = open_ctx(err);
	if (!ctx)
		return NULL;
	res = json_object_new_object();
	jadd_int(res, "serial", serial);
	md = region_memdev_by_serial(ctx, serial);
	if (!md) {
		snprintf(err, ERRLEN, "no memdev with serial %llu", serial);
		goto fail;
	}
	snprintf(memdev, sizeof(memdev), "%s", cxl_memdev_get_devname(md));
	jadd_str(res, "memdev", memdev);
	r = region_of_serial(ctx, serial, &ep);
	if (!r)		/* nothing assembled on it (an attach that failed) */
		goto eject;
	snprintf(name, sizeof(name), "%s", cxl_region_get_devname(r));
	jadd_str(res, "region", name);
	pool_runtime_give_back(serial, deadline, res);
	if (retire_dax(cxl_region_get_id(r), deadline, res, err) < 0)
		goto fail;
	if (cxl_region_is_enabled(r) && (rc = cxl_region_disable(r)) < 0) {
		snprintf(err, ERRLEN, "%s: disable: %s", name, strerror(-rc));
		goto fail;
	}
	if ((rc = cxl_region_decode_reset(r)) < 0 ||
	    (rc = cxl_region_clear_all_targets(r)) < 0 ||
	    (rc = cxl_decoder_set_dpa_size(ep, 0)) < 0 ||
	    (rc = cxl_region_delete(r)) < 0) {
		snprintf(err, ERRLEN, "%s: destroying it: %s", name, strerror(-rc));
		goto fail;
	}
	agent_log("%s: released (serial %llu)", name, serial);
eject:
	ld_registry_remove(serial);
	if (arg_int(args, "eject", 1) && eject(memdev, res, err) < 0 && err[0])
		goto fail;
	goto out;
fail:
	json_object_put(res);
	res = NULL;
out:
	if (res)
		jadd_double(res, "release_s", mono_s() - t0);
	cxl_unref(ctx);
	return res;
}

/* Node meminfo field @key in bytes, or -1. */
static long long node_meminfo(int node, const char *key)
{
	char path[128], line[256], k[64];
	long long kb, found = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", node);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Node %*d %63[^:]: %lld kB", k, &kb) == 2 &&
		    !strcmp(k, key)) {
			found = kb * 1024;
			break;
		}
	fclose(f);
	return found;
}

/* One LD's row: its region, mode, node and what the node holds. */
static json_object *usage_of(struct cxl_ctx *ctx, unsigned long long serial)
{
	json_object *o = json_object_new_object();
	struct cxl_decoder *ep = NULL;
	struct cxl_region *r = region_of_serial(ctx, serial, &ep);
	struct daxctl_ctx *dctx;
	struct daxctl_region *dr;

	jadd_int(o, "serial", serial);
	if (!r)
		return o;
	jadd_str(o, "region", cxl_region_get_devname(r));
	jadd_int(o, "size", cxl_region_get_size(r));
	if (daxctl_new(&dctx) < 0)
		return o;
	daxctl_region_foreach(dctx, dr) {
		struct daxctl_dev *d;

		if (daxctl_region_get_id(dr) != cxl_region_get_id(r))
			continue;
		daxctl_dev_foreach(dr, d) {
			struct daxctl_memory *mem = daxctl_dev_get_memory(d);
			int node = daxctl_dev_get_target_node(d);

			if (!daxctl_dev_get_size(d))
				continue;
			jadd_str(o, "dax", daxctl_dev_get_devname(d));
			if (mem && daxctl_memory_is_online(mem) > 0) {
				long long total = node_meminfo(node, "MemTotal");
				long long avail = node_meminfo(node, "MemFree");

				jadd_str(o, "mode", "ram");
				jadd_int(o, "node", node);
				jadd_int(o, "node_total_bytes", total);
				jadd_int(o, "used_bytes", total >= 0 && avail >= 0 ?
					 total - avail : -1);
			} else {
				jadd_str(o, "mode", "devdax");
				pool_runtime_usage(serial, o);
			}
		}
	}
	daxctl_unref(dctx);
	return o;
}

json_object *cmd_ld_usage(json_object *args, char *err)
{
	json_object *serials, *res, *arr;
	struct cxl_ctx *ctx;

	if (!json_object_object_get_ex(args, "serials", &serials) ||
	    !json_object_is_type(serials, json_type_array)) {
		snprintf(err, ERRLEN, "args.serials: an array of LD serials is required");
		return NULL;
	}
	ctx = open_ctx(err);
	if (!ctx)
		return NULL;
	res = json_object_new_object();
	arr = json_object_new_array();
	for (size_t i = 0; i < json_object_array_length(serials); i++)
		json_object_array_add(arr, usage_of(ctx, json_object_get_int64(
				json_object_array_get_idx(serials, i))));
	json_object_object_add(res, "lds", arr);
	cxl_unref(ctx);
	return res;
}
