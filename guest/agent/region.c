// SPDX-License-Identifier: MIT
/*
 * create-region: assemble a CXL ram region through libcxl, the way ndctl's
 * `cxl create-region` drives it: region on the window's root decoder, then
 * granularity, ways and size, DPA allocated on one endpoint decoder per
 * memdev, targets set by position, decode committed, region enabled.
 * online.c then waits for the memory (or sets the dax device up as devdax).
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <cxl/libcxl.h>

#include "agent.h"
#include "json_util.h"
#include "proto.h"

#define MAX_WAYS 16
#define SZ_256M (256ULL << 20)	/* the kernel's region size alignment per way */

/* The last error libcxl logged, appended to our own messages. */
static char cxl_last[256];

static void cxl_log(struct cxl_ctx *ctx, int prio, const char *file, int line,
		    const char *fn, const char *fmt, va_list ap)
{
	vsnprintf(cxl_last, sizeof(cxl_last), fmt, ap);
	cxl_last[strcspn(cxl_last, "\n")] = '\0';
	fprintf(stderr, "cxlbed-agent: libcxl: %s\n", cxl_last);
}

static void fail(char *err, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(err, ERRLEN, fmt, ap);
	va_end(ap);
	if (cxl_last[0] && n > 0 && n < ERRLEN)
		snprintf(err + n, ERRLEN - n, " (libcxl: %s)", cxl_last);
}

static struct cxl_memdev *memdev_by_serial(struct cxl_ctx *ctx,
					   unsigned long long serial)
{
	struct cxl_memdev *m;

	cxl_memdev_foreach(ctx, m)
		if (cxl_memdev_get_serial(m) == serial)
			return m;
	return NULL;
}

/* Endpoint decoders must be allocated in order: take the first free one. */
static struct cxl_decoder *free_endpoint_decoder(struct cxl_memdev *m,
						 unsigned long long *ram_used)
{
	struct cxl_endpoint *ep = cxl_memdev_get_endpoint(m);
	struct cxl_decoder *d, *found = NULL;

	*ram_used = 0;
	if (!ep)
		return NULL;
	cxl_decoder_foreach(cxl_endpoint_get_port(ep), d) {
		unsigned long long dpa = cxl_decoder_get_dpa_size(d);

		if (dpa && cxl_decoder_get_mode(d) == CXL_DECODER_MODE_RAM)
			*ram_used += dpa;
		if (!found && !dpa && !cxl_decoder_get_size(d))
			found = d;
	}
	return found;
}

/*
 * libcxl 76 (Debian 12) predates cxl_decoder_create_ram_region(): use it
 * when the library has it, else do that one step through the kernel's
 * documented ABI (read the next name from create_ram_region, write it
 * back). In that case the caller must look the new region up through a
 * fresh libcxl context, since libcxl caches a decoder's region list.
 */
typedef struct cxl_region *(*create_fn)(struct cxl_decoder *);

static int create_ram_region_sysfs(struct cxl_decoder *root, char *name,
				   size_t len, char *err)
{
	char path[256];
	int rc;

	snprintf(path, sizeof(path), "/sys/bus/cxl/devices/%s/create_ram_region",
		 cxl_decoder_get_devname(root));
	if (sysfs_read(path, name, len) < 0 || !name[0]) {
		fail(err, "%s: cannot read create_ram_region (no CXL_REGION support?)",
		     cxl_decoder_get_devname(root));
		return -1;
	}
	rc = sysfs_write(path, name);
	if (rc < 0) {
		fail(err, "%s: creating %s failed: %s",
		     cxl_decoder_get_devname(root), name, strerror(-rc));
		return -1;
	}
	return 0;
}

static struct cxl_region *region_by_name(struct cxl_decoder *root,
					 const char *name)
{
	struct cxl_region *r;

	cxl_region_foreach(root, r)
		if (!strcmp(cxl_region_get_devname(r), name))
			return r;
	return NULL;
}

struct plan {
	unsigned int ways, granularity;
	unsigned long long size;	/* whole region */
	struct cxl_decoder *root, *ep[MAX_WAYS];
};

/* Resolve the arguments into decoders and a size, or say why not. */
static int make_plan(struct cxl_ctx *ctx, json_object *args, struct plan *p,
		     char *err)
{
	json_object *serials;
	unsigned long long want = arg_int(args, "size", 0), per = ~0ULL, avail;
	int window = arg_int(args, "window", 0);
	char rootname[32];
	unsigned int i;

	p->ways = arg_int(args, "ways", 1);
	p->granularity = arg_int(args, "granularity", 4096);
	if (!json_object_object_get_ex(args, "serials", &serials) ||
	    !json_object_is_type(serials, json_type_array)) {
		fail(err, "args.serials: an array of memdev serials is required");
		return -1;
	}
	if (p->ways < 1 || p->ways > MAX_WAYS ||
	    json_object_array_length(serials) != p->ways) {
		fail(err, "args.ways (%u) must be 1..%d and match the %zu serials",
		     p->ways, MAX_WAYS, json_object_array_length(serials));
		return -1;
	}
	snprintf(rootname, sizeof(rootname), "decoder0.%d", window);
	p->root = cxl_decoder_get_by_name(ctx, rootname);
	if (!p->root) {
		fail(err, "window %d: no root decoder %s", window, rootname);
		return -1;
	}
	if (!cxl_decoder_is_volatile_capable(p->root)) {
		fail(err, "window %d (%s) is not volatile-capable", window, rootname);
		return -1;
	}
	for (i = 0; i < p->ways; i++) {
		unsigned long long sn = json_object_get_int64(
				json_object_array_get_idx(serials, i)), used;
		struct cxl_memdev *m = memdev_by_serial(ctx, sn);

		if (!m) {
			fail(err, "no memdev with serial %llu", sn);
			return -1;
		}
		for (unsigned int k = 0; k < i; k++)
			if (cxl_decoder_get_memdev(p->ep[k]) == m) {
				fail(err, "serial %llu listed twice", sn);
				return -1;
			}
		if (!cxl_memdev_get_endpoint(m)) {
			fail(err, "%s (serial %llu) has no CXL endpoint: not attached to the port topology",
			     cxl_memdev_get_devname(m), sn);
			return -1;
		}
		p->ep[i] = free_endpoint_decoder(m, &used);
		if (!p->ep[i]) {
			fail(err, "%s (serial %llu): no free endpoint decoder",
			     cxl_memdev_get_devname(m), sn);
			return -1;
		}
		avail = cxl_memdev_get_ram_size(m) - used;
		if (avail < per)
			per = avail;
	}
	avail = cxl_decoder_get_max_available_extent(p->root) / p->ways;
	if (avail < per)
		per = avail;
	if (want) {
		if (want % (SZ_256M * p->ways) || want / p->ways > per) {
			fail(err, "size %llu: must be a multiple of %llu and at most %llu",
			     want, SZ_256M * p->ways, per / SZ_256M * SZ_256M * p->ways);
			return -1;
		}
		per = want / p->ways;
	}
	per -= per % SZ_256M;
	if (!per) {
		fail(err, "no free ram capacity on the memdevs or in window %d",
		     window);
		return -1;
	}
	p->size = per * p->ways;
	return 0;
}

/* Undo a half-built region so that a retry starts clean. */
static void undo(struct cxl_region *r, struct plan *p)
{
	unsigned int i;

	if (r) {
		cxl_region_decode_reset(r);
		cxl_region_clear_all_targets(r);
		cxl_region_delete(r);
	}
	for (i = 0; i < p->ways; i++)
		if (p->ep[i] && cxl_decoder_get_dpa_size(p->ep[i]))
			cxl_decoder_set_dpa_size(p->ep[i], 0);
}

static int assemble(struct cxl_region *r, struct plan *p, char *err)
{
	const char *name = cxl_region_get_devname(r);
	unsigned long long per = p->size / p->ways;
	unsigned int i;
	int rc;

	rc = cxl_region_set_interleave_granularity(r, p->granularity);
	if (rc) {
		fail(err, "%s: granularity %u: %s", name, p->granularity, strerror(-rc));
		return -1;
	}
	rc = cxl_region_set_interleave_ways(r, p->ways);
	if (rc) {
		fail(err, "%s: ways %u: %s", name, p->ways, strerror(-rc));
		return -1;
	}
	rc = cxl_region_set_size(r, p->size);
	if (rc) {
		fail(err, "%s: size %llu: %s", name, p->size, strerror(-rc));
		return -1;
	}
	for (i = 0; i < p->ways; i++) {
		const char *dn = cxl_decoder_get_devname(p->ep[i]);

		rc = cxl_decoder_set_mode(p->ep[i], CXL_DECODER_MODE_RAM);
		if (!rc)
			rc = cxl_decoder_set_dpa_size(p->ep[i], per);
		if (rc) {
			fail(err, "%s: allocating %llu bytes of DPA: %s", dn, per,
			     strerror(-rc));
			return -1;
		}
		rc = cxl_region_set_target(r, i, p->ep[i]);
		if (rc) {
			fail(err, "%s: target%u = %s: %s (is the serial order the interleave order?)",
			     name, i, dn, strerror(-rc));
			return -1;
		}
	}
	rc = cxl_region_decode_commit(r);
	if (rc) {
		fail(err, "%s: commit: %s", name, strerror(-rc));
		return -1;
	}
	rc = cxl_region_enable(r);
	if (rc) {
		fail(err, "%s: enable: %s", name, strerror(-rc));
		return -1;
	}
	return 0;
}

static struct cxl_ctx *new_ctx(void)
{
	struct cxl_ctx *ctx;

	if (cxl_new(&ctx) < 0)
		return NULL;
	cxl_set_log_fn(ctx, cxl_log);
	cxl_set_log_priority(ctx, LOG_ERR);
	return ctx;
}

json_object *cmd_create_region(json_object *args, char *err)
{
	create_fn lib_create = (create_fn)dlsym(RTLD_DEFAULT,
					"cxl_decoder_create_ram_region");
	const char *mode = arg_str(args, "mode", "ram");
	const char *id = arg_str(args, "id", NULL);
	struct cxl_region *r = NULL;
	struct plan p = { 0 };
	json_object *res = NULL;
	struct cxl_ctx *ctx;
	char name[64];
	bool devdax;

	if (strcmp(mode, "ram") && strcmp(mode, "devdax")) {
		fail(err, "args.mode '%s': expected \"ram\" or \"devdax\"", mode);
		return NULL;
	}
	devdax = !strcmp(mode, "devdax");
	cxl_last[0] = '\0';
	ctx = new_ctx();
	if (!ctx) {
		fail(err, "libcxl: cxl_new failed");
		return NULL;
	}
	if (make_plan(ctx, args, &p, err) < 0)
		goto out;
	if (lib_create) {
		r = lib_create(p.root);
		if (!r) {
			fail(err, "%s: creating a ram region failed",
			     cxl_decoder_get_devname(p.root));
			goto out;
		}
	} else {
		if (create_ram_region_sysfs(p.root, name, sizeof(name), err) < 0)
			goto out;
		/* Start over on a fresh context that sees the new region. */
		cxl_unref(ctx);
		memset(&p, 0, sizeof(p));
		ctx = new_ctx();
		if (!ctx) {
			fail(err, "libcxl: cxl_new failed");
			return NULL;
		}
		if (make_plan(ctx, args, &p, err) < 0)
			goto out;
		r = region_by_name(p.root, name);
		if (!r) {
			fail(err, "%s: created, but libcxl does not list it", name);
			goto out;
		}
	}
	snprintf(name, sizeof(name), "%s", cxl_region_get_devname(r));
	agent_log("%s: %u-way, granularity %u, %llu bytes on %s", name, p.ways,
		  p.granularity, p.size, cxl_decoder_get_devname(p.root));
	if (assemble(r, &p, err) < 0) {
		undo(r, &p);
		goto out;
	}
	res = online_region(name, devdax, p.size, err);
	if (res && id)
		jadd_str(res, "id", id);
out:
	cxl_unref(ctx);
	return res;
}

/* For ld.c: a context that logs like this file's, and a memdev by serial. */
struct cxl_ctx *region_ctx_new(void)
{
	return new_ctx();
}

struct cxl_memdev *region_memdev_by_serial(struct cxl_ctx *ctx,
					   unsigned long long serial)
{
	return memdev_by_serial(ctx, serial);
}
