/* SPDX-License-Identifier: MIT */
/* sysfs/procfs helpers; see sysfs.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sysfs.h"

int cp_read(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	buf[n] = '\0';
	return 0;
}

long long cp_read_ll(const char *path, long long def)
{
	return cp_read_llf(def, "%s", path);
}

int cp_write(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), e = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		e = -errno;
	close(fd);
	return e;
}

int cp_write_ll(const char *path, long long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld", v);
	return cp_write(path, buf);
}

int cp_readf(char *buf, size_t len, const char *fmt, ...)
{
	char path[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	return cp_read(path, buf, len);
}

long long cp_read_llf(long long def, const char *fmt, ...)
{
	char path[512], buf[64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (cp_read(path, buf, sizeof(buf)) < 0 || !buf[0])
		return def;
	return strtoll(buf, NULL, 0);
}

int cp_writef(const char *val, const char *fmt, ...)
{
	char path[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	return cp_write(path, val);
}

bool cp_list_has(const char *list, int n)
{
	const char *s = list;

	while (*s) {
		char *end;
		long a = strtol(s, &end, 10), b = a;

		if (end == s)
			return false;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		if (n >= a && n <= b)
			return true;
		s = *end == ',' ? end + 1 : end;
		if (*end != ',')
			break;
	}
	return false;
}

long long cp_node_meminfo(int node, const char *field)
{
	char path[128], line[256];
	size_t flen = strlen(field);
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", node);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		/* "Node 1 MemFree:   1234 kB" */
		char *p = strchr(line + 5, ' ');

		if (!p || strncmp(p + 1, field, flen) || p[1 + flen] != ':')
			continue;
		v = strtoll(p + 2 + flen, NULL, 10) * 1024;
		break;
	}
	fclose(f);
	return v;
}

long long cp_vmstat(const char *name)
{
	char line[128];
	size_t len = strlen(name);
	long long v = -1;
	FILE *f = fopen("/proc/vmstat", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, len) && line[len] == ' ') {
			v = strtoll(line + len + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}
