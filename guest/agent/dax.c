// SPDX-License-Identifier: MIT
/*
 * dax-write / dax-read: raw byte access to a devdax region through
 * /dev/daxN.M, so that the host can check that two guests whose regions are
 * backed by the same pool really see the same bytes.
 *
 * device-dax only accepts mappings whose file offset, address and length
 * are multiples of the device's alignment (usually 2 MiB), so the aligned
 * range around [offset, offset+length) is mapped and the bytes copied in or
 * out of the middle of it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <emmintrin.h>
#endif

#include "agent.h"
#include "json_util.h"
#include "proto.h"

#define DAX_SYSFS "/sys/bus/dax/devices"
#define DAX_READ_MAX 4096
/* More than fits in a 1 MiB request line as hex: the line limit bites first. */
#define DAX_WRITE_MAX (512 * 1024)
/* clflush granularity; every x86-64 part has 64-byte lines. */
#define CACHE_LINE 64

struct daxdev {
	char name[32];			/* daxN.M */
	char node[48];			/* /dev/daxN.M */
	unsigned long long size, align;
};

/* Look up and check the "dax" argument; 0, or -1 with a message in err. */
static int dax_lookup(json_object *args, struct daxdev *d, char *err)
{
	const char *name = arg_str(args, "dax", NULL);
	char path[128], val[64], link[PATH_MAX];
	unsigned int region, id, maj, min;
	const char *drv;
	ssize_t n;
	int end = 0;

	if (!name) {
		snprintf(err, ERRLEN, "missing or non-string \"dax\"");
		return -1;
	}
	/* Strict daxN.M: the name becomes a sysfs and /dev path. */
	if (sscanf(name, "dax%u.%u%n", &region, &id, &end) != 2 ||
	    name[end] || strlen(name) >= sizeof(d->name) ||
	    snprintf(d->name, sizeof(d->name), "dax%u.%u", region, id) < 0 ||
	    strcmp(d->name, name)) {
		snprintf(err, ERRLEN, "bad dax device name '%.64s' (want daxN.M)", name);
		return -1;
	}
	snprintf(path, sizeof(path), DAX_SYSFS "/%s", d->name);
	if (access(path, F_OK) < 0) {
		snprintf(err, ERRLEN, "unknown dax device '%s'", d->name);
		return -1;
	}
	/* A kmem-held (ram) device has no character device to map. */
	snprintf(path, sizeof(path), DAX_SYSFS "/%s/driver", d->name);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0) {
		snprintf(err, ERRLEN, "%s is not bound to a driver", d->name);
		return -1;
	}
	link[n] = '\0';
	drv = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
	if (strcmp(drv, "device_dax")) {
		snprintf(err, ERRLEN, "%s is not a devdax device (driver %.64s)",
			 d->name, drv);
		return -1;
	}
	snprintf(path, sizeof(path), DAX_SYSFS "/%s/size", d->name);
	d->size = (unsigned long long)sysfs_ll(path, 0);
	if (!d->size) {
		snprintf(err, ERRLEN, "%s has no capacity", d->name);
		return -1;
	}
	/* Kernels before 5.10 have no align attribute: page alignment. */
	snprintf(path, sizeof(path), DAX_SYSFS "/%s/align", d->name);
	d->align = (unsigned long long)sysfs_ll(path, sysconf(_SC_PAGESIZE));
	if (!d->align || (d->align & (d->align - 1))) {
		snprintf(err, ERRLEN, "%s: odd alignment %llu", d->name, d->align);
		return -1;
	}
	/* No udev in the guest: make the node if devtmpfs has not. */
	snprintf(d->node, sizeof(d->node), "/dev/%s", d->name);
	if (access(d->node, F_OK) < 0) {
		snprintf(path, sizeof(path), DAX_SYSFS "/%s/dev", d->name);
		if (sysfs_read(path, val, sizeof(val)) < 0 ||
		    sscanf(val, "%u:%u", &maj, &min) != 2 ||
		    (mknod(d->node, S_IFCHR | 0600, makedev(maj, min)) < 0 &&
		     errno != EEXIST)) {
			snprintf(err, ERRLEN, "%s: no device node", d->name);
			return -1;
		}
	}
	return 0;
}

/* A non-negative integer argument; 0, or -1 with a message in err. */
static int arg_u64(json_object *args, const char *key, uint64_t *v, char *err)
{
	json_object *o;

	if (!json_object_object_get_ex(args, key, &o) ||
	    !json_object_is_type(o, json_type_int)) {
		snprintf(err, ERRLEN, "missing or non-integer \"%s\"", key);
		return -1;
	}
	if (json_object_get_int64(o) < 0) {
		snprintf(err, ERRLEN, "\"%s\" must not be negative", key);
		return -1;
	}
	*v = (uint64_t)json_object_get_int64(o);
	return 0;
}

/* The bytes [off, off+len) must lie inside the device. */
static int check_range(const struct daxdev *d, uint64_t off, uint64_t len,
		       char *err)
{
	if (off > d->size || len > d->size - off) {
		snprintf(err, ERRLEN,
			 "offset %llu + length %llu beyond %s's %llu bytes",
			 (unsigned long long)off, (unsigned long long)len,
			 d->name, d->size);
		return -1;
	}
	return 0;
}

struct daxmap {
	void *base;
	size_t len;
};

/*
 * Map the aligned range containing [off, off+len) shared and return a
 * pointer to byte off; NULL with a message in err. The device size is a
 * multiple of its alignment, so the rounded-up end stays inside it.
 */
static unsigned char *dax_map(const struct daxdev *d, uint64_t off,
			      uint64_t len, struct daxmap *m, char *err)
{
	uint64_t start = off & ~(uint64_t)(d->align - 1);
	uint64_t end = (off + len + d->align - 1) & ~(uint64_t)(d->align - 1);
	int fd = open(d->node, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		snprintf(err, ERRLEN, "open %s: %s", d->node, strerror(errno));
		return NULL;
	}
	m->len = end - start;
	m->base = mmap(NULL, m->len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		       (off_t)start);
	close(fd);	/* the mapping keeps the device open */
	if (m->base == MAP_FAILED) {
		snprintf(err, ERRLEN, "mmap %s [0x%llx, +0x%zx) (align 0x%llx): %s",
			 d->name, (unsigned long long)start, m->len, d->align,
			 strerror(errno));
		return NULL;
	}
	return (unsigned char *)m->base + (off - start);
}

/*
 * Write back and invalidate the cache lines of [p, p+n). After a write the
 * bytes reach the shared medium; before a read no stale line from earlier
 * is returned in place of what another host wrote. Needed on a pool that is
 * not kept coherent across hosts. msync() cannot do this: device-dax files
 * have no fsync, so msync(MS_SYNC) would fail with EINVAL.
 */
static void flush_lines(const unsigned char *p, size_t n)
{
#if defined(__x86_64__) || defined(__i386__)
	uintptr_t a = (uintptr_t)p & ~(uintptr_t)(CACHE_LINE - 1);

	_mm_mfence();	/* order earlier stores before the flushes */
	for (; a < (uintptr_t)p + n; a += CACHE_LINE)
		_mm_clflush((const void *)a);
	_mm_mfence();	/* flushes done before anything that follows */
#else
	(void)p;
	(void)n;
	__sync_synchronize();
#endif
}

json_object *cmd_dax_write(json_object *args, char *err)
{
	const char *hex = arg_str(args, "hex", NULL);
	struct daxdev d;
	struct daxmap m;
	unsigned char *buf, *p;
	json_object *res;
	uint64_t off;
	long n;

	if (dax_lookup(args, &d, err) < 0 || arg_u64(args, "offset", &off, err) < 0)
		return NULL;
	if (!hex) {
		snprintf(err, ERRLEN, "missing or non-string \"hex\"");
		return NULL;
	}
	if (!hex[0]) {
		snprintf(err, ERRLEN, "\"hex\" is empty");
		return NULL;
	}
	buf = malloc(DAX_WRITE_MAX);
	if (!buf) {
		snprintf(err, ERRLEN, "out of memory");
		return NULL;
	}
	/* Decode everything first: bad hex must not leave a partial write. */
	n = hex_decode(hex, buf, DAX_WRITE_MAX, err, ERRLEN);
	if (n < 0 || check_range(&d, off, (uint64_t)n, err) < 0 ||
	    !(p = dax_map(&d, off, (uint64_t)n, &m, err))) {
		free(buf);
		return NULL;
	}
	memcpy(p, buf, (size_t)n);
	flush_lines(p, (size_t)n);
	munmap(m.base, m.len);
	free(buf);
	res = json_object_new_object();
	jadd_int(res, "bytes", n);
	return res;
}

json_object *cmd_dax_read(json_object *args, char *err)
{
	unsigned char buf[DAX_READ_MAX], *p;
	char hex[2 * DAX_READ_MAX + 1];
	struct daxdev d;
	struct daxmap m;
	json_object *res;
	uint64_t off, len;

	if (dax_lookup(args, &d, err) < 0 ||
	    arg_u64(args, "offset", &off, err) < 0 ||
	    arg_u64(args, "length", &len, err) < 0)
		return NULL;
	if (len < 1 || len > DAX_READ_MAX) {
		snprintf(err, ERRLEN, "\"length\" %llu: must be 1 to %d",
			 (unsigned long long)len, DAX_READ_MAX);
		return NULL;
	}
	if (check_range(&d, off, len, err) < 0 ||
	    !(p = dax_map(&d, off, len, &m, err)))
		return NULL;
	flush_lines(p, (size_t)len);
	memcpy(buf, p, (size_t)len);
	munmap(m.base, m.len);
	hex_encode(buf, (size_t)len, hex);
	res = json_object_new_object();
	jadd_str(res, "hex", hex);
	return res;
}
