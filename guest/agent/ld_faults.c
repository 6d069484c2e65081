// SPDX-License-Identifier: MIT
/*
 * The guest agent's part in faults on pool LDs (docs/faults.md):
 *
 *  - the LD registry: every LD attached is described in
 *    /run/cxlbed/lds/SERIAL.json (LD, pool, region, dax device, base, size,
 *    mode) and the file goes when the LD is released, so that a runtime
 *    knows which failure domain (pool) each of its LDs belongs to;
 *  - AER: the 6.12 kernel leaves a device's internal-error bits masked in
 *    its AER capability (their reset default), so a CXL device's RAS
 *    errors (QMP cxl-inject-(un)correctable-error) never reach the OS;
 *    the agent unmasks them on each LD it attaches;
 *  - `ld-fault`: what the host asks of the guest kernel when it injects
 *    poison: read the device's poison list (the kernel then traces
 *    cxl_poison with the host physical address), and hand the poisoned
 *    pages to memory-failure handling as a platform does when a CPU
 *    consumes poison (QEMU's x86 MCE injection cannot do it for this
 *    guest's CPU model: it panics, there being no MCA recovery).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent.h"
#include "json_util.h"
#include "ld_faults.h"
#include "proto.h"

#define REGISTRY "/run/cxlbed/lds"
#define PCI_EXT_CAP 0x100
#define AER_CAP_ID 0x0001
#define AER_UNCOR_MASK 0x08
#define AER_COR_MASK 0x14
#define AER_UNCOR_INTERNAL (1u << 22)
#define AER_COR_INTERNAL (1u << 14)

static void registry_path(unsigned long long serial, char *buf, size_t len)
{
	snprintf(buf, len, REGISTRY "/%llu.json", serial);
}

void ld_registry_add(json_object *args, json_object *res)
{
	const char *id = arg_str(args, "id", NULL);
	const char *pool = arg_str(args, "pool", NULL);
	char path[128], tmp[140], pool_buf[64] = "";
	json_object *o = json_object_new_object(), *v;
	FILE *f;

	if (!pool && id) {
		/* "p0.ld3": the pool is what precedes ".ldN" */
		const char *dot = strstr(id, ".ld");

		snprintf(pool_buf, sizeof(pool_buf), "%.*s",
			 dot ? (int)(dot - id) : (int)strlen(id), id);
		pool = pool_buf;
	}
	jadd_int(o, "serial", json_object_get_int64(json_object_object_get(res, "serial")));
	jadd_str(o, "ld", id);
	jadd_str(o, "pool", pool);
	static const char *const copied[] = { "region", "dax", "mode", "memdev" };
	for (unsigned int i = 0; i < sizeof(copied) / sizeof(copied[0]); i++)
		if (json_object_object_get_ex(res, copied[i], &v))
			json_object_object_add(o, copied[i], json_object_get(v));
	static const char *const nums[] = { "base", "size", "node" };
	for (unsigned int i = 0; i < sizeof(nums) / sizeof(nums[0]); i++)
		if (json_object_object_get_ex(res, nums[i], &v))
			json_object_object_add(o, nums[i], json_object_get(v));
	mkdir("/run/cxlbed", 0755);
	mkdir(REGISTRY, 0755);
	registry_path(json_object_get_int64(json_object_object_get(o, "serial")), path,
		      sizeof(path));
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "we");
	if (f) {
		fprintf(f, "%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
		if (fclose(f) == 0)
			rename(tmp, path);	/* readers never see half a file */
	}
	json_object_put(o);
}

void ld_registry_remove(unsigned long long serial)
{
	char path[128];

	registry_path(serial, path, sizeof(path));
	unlink(path);
}

/* The PCI function directory of memdev @memdev (cxl memN). */
static int pci_dir_of(const char *memdev, char *out, size_t len)
{
	char link[128], real[PATH_MAX], *slash;

	snprintf(link, sizeof(link), "/sys/bus/cxl/devices/%s", memdev);
	if (!realpath(link, real) || !(slash = strrchr(real, '/')))
		return -1;
	*slash = '\0';
	snprintf(out, len, "%s", real);
	return 0;
}

static int cfg_rw(int fd, int write, unsigned int off, uint32_t *v)
{
	ssize_t n = write ? pwrite(fd, v, 4, off) : pread(fd, v, 4, off);

	return n == 4 ? 0 : -1;
}

int ld_unmask_ras(const char *memdev, json_object *res)
{
	char dir[PATH_MAX], cfg[PATH_MAX + 16];
	unsigned int off = PCI_EXT_CAP;
	uint32_t hdr, m;
	int fd, rc = -1;

	if (pci_dir_of(memdev, dir, sizeof(dir)))
		return -1;
	snprintf(cfg, sizeof(cfg), "%s/config", dir);
	fd = open(cfg, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -1;
	for (int hops = 0; off && hops < 64; hops++) {
		if (cfg_rw(fd, 0, off, &hdr) || hdr == 0 || hdr == ~0u)
			break;
		if ((hdr & 0xffff) == AER_CAP_ID) {
			if (!cfg_rw(fd, 0, off + AER_UNCOR_MASK, &m)) {
				m &= ~AER_UNCOR_INTERNAL;
				cfg_rw(fd, 1, off + AER_UNCOR_MASK, &m);
			}
			if (!cfg_rw(fd, 0, off + AER_COR_MASK, &m)) {
				m &= ~AER_COR_INTERNAL;
				rc = cfg_rw(fd, 1, off + AER_COR_MASK, &m);
			}
			break;
		}
		off = hdr >> 20;
	}
	close(fd);
	if (res)
		jadd_bool(res, "ras_unmasked", rc == 0);
	return rc;
}

json_object *cmd_ld_fault(json_object *args, char *err)
{
	const char *action = arg_str(args, "action", "");
	json_object *res = json_object_new_object();

	if (!strcmp(action, "poison-scan")) {
		/* every memdev: the kernel reads each poison list and traces it */
		char path[128];
		int n = 0;

		for (int i = 0; i < 256; i++) {
			snprintf(path, sizeof(path),
				 "/sys/bus/cxl/devices/mem%d/trigger_poison_list", i);
			if (access(path, W_OK) == 0 && sysfs_write(path, "1") == 0)
				n++;
		}
		jadd_int(res, "memdevs_scanned", n);
		return res;
	}
	if (!strcmp(action, "memory-failure")) {
		unsigned long long hpa = arg_int(args, "hpa", 0);
		unsigned long long len = arg_int(args, "length", 4096);
		char val[32];
		int pages = 0, failed = 0;

		if (!hpa) {
			snprintf(err, ERRLEN, "args.hpa: the host physical address is required");
			json_object_put(res);
			return NULL;
		}
		for (unsigned long long a = hpa & ~4095ull; a < hpa + len; a += 4096) {
			snprintf(val, sizeof(val), "0x%llx", a);
			if (sysfs_write("/sys/devices/system/memory/hard_offline_page", val) == 0)
				pages++;
			else
				failed++;
		}
		jadd_int(res, "pages", pages);
		jadd_int(res, "failed", failed);
		return res;
	}
	snprintf(err, ERRLEN, "args.action: 'poison-scan' or 'memory-failure', not '%s'",
		 action);
	json_object_put(res);
	return NULL;
}
