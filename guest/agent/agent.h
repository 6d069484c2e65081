/* SPDX-License-Identifier: MIT */
/* Shared declarations of the in-guest agent's parts. */
#ifndef CXLBED_AGENT_H
#define CXLBED_AGENT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <json-c/json.h>

/* Every command: args in, result out (owned by the caller) or an error. */
#define ERRLEN 512
typedef json_object *(*cmd_fn)(json_object *args, char *err);

/* chan.c: the virtio-serial port */
#define AGENT_PORT_NAME "org.cxlbed.agent"
int chan_open(const char *name);
bool chan_exists(const char *name);	/* is a port of that name there? */
int chan_send(const char *line);	/* 0, or -1 when dropped */
void agent_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* sysfs.c: small readers; return -1 when the file is absent */
int sysfs_read(const char *path, char *buf, size_t len);
int sysfs_write(const char *path, const char *val);
long long sysfs_ll(const char *path, long long def);
double uptime_s(void);
double mono_s(void);	/* CLOCK_MONOTONIC in seconds (modeled time when timed) */

/* settle.c: returns once the guest's background start-up is over */
void wait_background_startup(void);

/* stuck.c: one line on where a timed-out program's threads were */
void stuck_describe(pid_t pid, char *buf, size_t len);

/* enumerate.c, region.c, run.c */
json_object *cmd_enumerate(json_object *args, char *err);
json_object *cmd_create_region(json_object *args, char *err);
json_object *cmd_run(json_object *args, char *err);

/* dax.c: raw byte access to a devdax device, for pool sharing checks */
json_object *cmd_dax_write(json_object *args, char *err);
json_object *cmd_dax_read(json_object *args, char *err);

/* boot_regions.c: regions named on the kernel command line (cxlbed.region=),
 * created once per boot; their results, or NULL when none were named */
json_object *boot_regions(void);
json_object *boot_region_args(const char *spec, char *err);
/* ld.c: the fabric manager's LD handshake (docs/pooling.md) */
#define AGENT_FM_PORT_NAME "org.cxlbed.fm"
json_object *cmd_attach_ld(json_object *args, char *err);
json_object *cmd_release_ld(json_object *args, char *err);
json_object *cmd_ld_usage(json_object *args, char *err);
/* region.c, for ld.c */
struct cxl_ctx;
struct cxl_memdev;
struct cxl_ctx *region_ctx_new(void);
struct cxl_memdev *region_memdev_by_serial(struct cxl_ctx *ctx,
					   unsigned long long serial);

/* online.c: bring a region's dax device to the requested mode */
json_object *online_region(const char *region, bool devdax,
			   unsigned long long size, char *err);
long long node_mem_bytes(int node);
/* tiers.c: the kernel's memory tiers; the SRAT and HMAT they come from. */
json_object *tiers_json(void);
json_object *acpi_numa_tables_json(void);

#endif
