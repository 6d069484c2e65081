/* SPDX-License-Identifier: MIT */
/* Small readers and writers for sysfs/procfs files (libcxlpool). */
#ifndef CXLPOOL_SYSFS_H
#define CXLPOOL_SYSFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The file's text, trailing white space removed; -1 if unreadable. */
int cp_read(const char *path, char *buf, size_t len);
/* A number from the file, or @def. */
long long cp_read_ll(const char *path, long long def);
/* 0, or -errno. */
int cp_write(const char *path, const char *val);
int cp_write_ll(const char *path, long long v);
/* printf-style path helpers. */
int cp_readf(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
long long cp_read_llf(long long def, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int cp_writef(const char *val, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Is @n in a kernel node list such as "0-1,3"? */
bool cp_list_has(const char *list, int n);
/* "Node 1 MemFree: 1234 kB" style field of /sys/.../nodeN/meminfo, bytes;
 * -1 if absent. */
long long cp_node_meminfo(int node, const char *field);
/* A counter of /proc/vmstat; -1 if absent. */
long long cp_vmstat(const char *name);

#endif
