/* SPDX-License-Identifier: MIT */
/*
 * cxlpoold: the pool runtime's daemon (docs/pooling.md "cxlpoold"). A
 * JSON-lines server on /run/cxlpoold.sock, one request per connection:
 *
 *   register  {pid}            a process whose pages the daemon manages
 *   give-back {serial}         move registered processes' pages off the
 *                              LD's NUMA node -> {released, migrated_bytes}
 *   took      {serial, node|dax, bytes}   new capacity (noted)
 *   usage     {serial}         -> {used_bytes} of the LD's node
 *
 * `cxlpoold --send JSON` is its client: one request, the reply on stdout.
 * Plain C on libc and libnuma (tiers through libcxlpool).
 */
#include <errno.h>
#include <numa.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "cxlpool.h"
#include "sysfs.h"

#define SOCK_PATH "/run/cxlpoold.sock"
#define MAX_PIDS 64

static pid_t pids[MAX_PIDS];
static int npids;

/* The number after "KEY": in a request line; -1 when absent. */
static long long field(const char *req, const char *key)
{
	char pat[40];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(req, pat);
	return p ? strtoll(p + strlen(pat), NULL, 10) : -1;
}

/* The NUMA node of the CXL tier holding memdev @serial; -1 if none. */
static int node_of_serial(long long serial)
{
	struct cxlpool_tier t[CXLPOOL_MAX_TIERS];
	int n = cxlpool_tiers(t, CXLPOOL_MAX_TIERS);

	for (int i = 0; i < n; i++)
		for (int k = 0; k < t[i].nserials; k++)
			if ((long long)t[i].serials[k] == serial && t[i].node >= 0)
				return t[i].node;
	return -1;
}

/* Move every registered process's pages off @node onto the other nodes
 * with memory; bytes the kernel migrated (pgmigrate_success). */
static long long migrate_off(int node, int *moved_pids)
{
	struct bitmask *from = numa_allocate_nodemask(), *to = numa_allocate_nodemask();
	long long before = cp_vmstat("pgmigrate_success");

	numa_bitmask_setbit(from, (unsigned)node);
	for (int n = 0; n <= numa_max_node(); n++)
		if (n != node && numa_node_size64(n, NULL) > 0)
			numa_bitmask_setbit(to, (unsigned)n);
	*moved_pids = 0;
	for (int i = 0; i < npids; i++) {
		if (kill(pids[i], 0))
			continue;	/* gone */
		if (numa_migrate_pages(pids[i], from, to) >= 0)
			(*moved_pids)++;
	}
	numa_free_nodemask(from);
	numa_free_nodemask(to);
	return (cp_vmstat("pgmigrate_success") - before) * 4096;
}

static void answer(const char *req, FILE *out)
{
	long long serial = field(req, "serial");
	int node;

	if (strstr(req, "\"cmd\":\"register\"")) {
		long long pid = field(req, "pid");

		if (pid <= 0 || npids >= MAX_PIDS) {
			fprintf(out, "{\"error\":\"register wants a pid (at most %d)\"}\n", MAX_PIDS);
			return;
		}
		pids[npids++] = (pid_t)pid;
		fprintf(out, "{\"registered\":%lld,\"processes\":%d}\n", pid, npids);
	} else if (strstr(req, "\"cmd\":\"give-back\"")) {
		int moved;
		long long bytes;

		node = node_of_serial(serial);
		if (node < 0) {
			/* a devdax LD or one we do not know: nothing of ours */
			fprintf(out, "{\"released\":[%lld],\"migrated_bytes\":0,"
				"\"note\":\"no NUMA node of ours on that LD\"}\n", serial);
			return;
		}
		bytes = migrate_off(node, &moved);
		fprintf(out, "{\"released\":[%lld],\"migrated_bytes\":%lld,\"node\":%d,"
			"\"processes\":%d}\n", serial, bytes, node, moved);
	} else if (strstr(req, "\"cmd\":\"took\"")) {
		fprintf(out, "{\"took\":%lld,\"node\":%lld,\"bytes\":%lld}\n", serial,
			field(req, "node"), field(req, "bytes"));
	} else if (strstr(req, "\"cmd\":\"usage\"")) {
		node = node_of_serial(serial);
		if (node < 0)
			fprintf(out, "{\"error\":\"no NUMA node for serial %lld\"}\n", serial);
		else
			fprintf(out, "{\"used_bytes\":%lld}\n",
				cp_node_meminfo(node, "MemTotal") - cp_node_meminfo(node, "MemFree"));
	} else {
		fprintf(out, "{\"error\":\"unknown command; register, give-back, took, usage\"}\n");
	}
}

static int sock_to(const char *path, struct sockaddr_un *sa)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	sa->sun_family = AF_UNIX;
	snprintf(sa->sun_path, sizeof(sa->sun_path), "%s", path);
	return fd;
}

static int send_one(const char *path, const char *req)
{
	struct sockaddr_un sa;
	char buf[4096];
	ssize_t n;
	int fd = sock_to(path, &sa);

	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		fprintf(stderr, "cxlpoold: %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (write(fd, req, strlen(req)) < 0 || write(fd, "\n", 1) < 0)
		return 1;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		fwrite(buf, 1, (size_t)n, stdout);
	close(fd);
	return 0;
}

static int serve(const char *path)
{
	struct sockaddr_un sa;
	int fd = sock_to(path, &sa);

	unlink(path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 8)) {
		fprintf(stderr, "cxlpoold: %s: %s\n", path, strerror(errno));
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);
	for (;;) {
		char req[4096];
		size_t len = 0;
		ssize_t n;
		int c = accept(fd, NULL, NULL);
		FILE *out;

		if (c < 0)
			continue;
		while (len < sizeof(req) - 1 && (n = read(c, req + len, sizeof(req) - 1 - len)) > 0) {
			len += (size_t)n;
			if (memchr(req, '\n', len))
				break;
		}
		req[len] = '\0';
		out = fdopen(c, "w");
		if (!out) {
			close(c);
			continue;
		}
		answer(req, out);
		fclose(out);
	}
}

int main(int argc, char **argv)
{
	const char *path = SOCK_PATH;

	if (argc >= 3 && !strcmp(argv[1], "--socket")) {
		path = argv[2];
		argv += 2;
		argc -= 2;
	}
	if (argc == 3 && !strcmp(argv[1], "--send"))
		return send_one(path, argv[2]);
	if (argc != 1) {
		fprintf(stderr, "usage: cxlpoold [--socket PATH] [--send JSON]\n");
		return 2;
	}
	if (numa_available() < 0) {
		fprintf(stderr, "cxlpoold: no NUMA support in this kernel\n");
		return 1;
	}
	return serve(path);
}
