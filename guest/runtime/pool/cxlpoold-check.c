/* SPDX-License-Identifier: MIT */
/*
 * cxlpoold-check [--mib N]: a give-back end to end, in the guest. Places
 * N MiB (16) of checksummed data on the first CXL node, registers itself
 * with a running cxlpoold, asks it to give back that node's LD (its memdev
 * serial) and then checks that no page is left there and every byte is
 * intact. One JSON line; exit 0 when both hold, 1 when not, 2 on bad use.
 */
#include <numaif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "cxlpool.h"

#define PAGE 4096ul

static int ask(const char *req, char *reply, size_t len)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t got = 0;
	ssize_t n;
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "/run/cxlpoold.sock");
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    write(fd, req, strlen(req)) < 0 || write(fd, "\n", 1) < 0)
		return -1;
	while (got < len - 1 && (n = read(fd, reply + got, len - 1 - got)) > 0)
		got += (size_t)n;
	reply[got] = '\0';
	if (got && reply[got - 1] == '\n')
		reply[got - 1] = '\0';
	close(fd);
	return 0;
}

/* Pages of [p, p + len) on @node now. */
static size_t pages_on(char *p, size_t len, int node)
{
	size_t n = len / PAGE, on = 0;
	void **addr = malloc(n * sizeof(*addr));
	int *status = malloc(n * sizeof(*status));

	for (size_t i = 0; i < n; i++)
		addr[i] = p + i * PAGE;
	if (!move_pages(0, n, addr, NULL, status, 0))
		for (size_t i = 0; i < n; i++)
			on += status[i] == node;
	free(addr);
	free(status);
	return on;
}

int main(int argc, char **argv)
{
	struct cxlpool_tier t[CXLPOOL_MAX_TIERS];
	size_t len = 16ul << 20, bad = 0, before, after;
	int nt = cxlpool_tiers(t, CXLPOOL_MAX_TIERS), cxl = -1;
	char req[256], reply[1024];
	unsigned long mask;
	uint64_t *w;

	if (argc == 3 && !strcmp(argv[1], "--mib"))
		len = strtoul(argv[2], NULL, 10) << 20;
	else if (argc != 1 || !len) {
		fprintf(stderr, "usage: cxlpoold-check [--mib N]\n");
		return 2;
	}
	for (int i = 0; i < nt && cxl < 0; i++)
		if (t[i].kind == CXLPOOL_CXL && t[i].nserials > 0)
			cxl = i;
	if (cxl < 0) {
		printf("{\"error\":\"no CXL node with a memdev\"}\n");
		return 1;
	}
	w = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	mask = 1ul << t[cxl].node;
	/* preferred, not bound: a give-back must be free to move the pages */
	if (w == MAP_FAILED ||
	    mbind(w, len, MPOL_PREFERRED, &mask, sizeof(mask) * 8, 0))
		return perror("cxlpoold-check: mmap/mbind"), 1;
	for (size_t i = 0; i < len / 8; i++)
		w[i] = i * 0x9e3779b97f4a7c15ull;
	before = pages_on((char *)w, len, t[cxl].node);

	snprintf(req, sizeof(req), "{\"cmd\":\"register\",\"args\":{\"pid\":%d}}", (int)getpid());
	if (ask(req, reply, sizeof(reply)))
		return printf("{\"error\":\"cxlpoold does not answer\"}\n"), 1;
	snprintf(req, sizeof(req), "{\"cmd\":\"give-back\",\"args\":{\"serial\":%llu}}",
		 (unsigned long long)t[cxl].serials[0]);
	if (ask(req, reply, sizeof(reply)))
		return printf("{\"error\":\"cxlpoold does not answer\"}\n"), 1;
	after = pages_on((char *)w, len, t[cxl].node);
	for (size_t i = 0; i < len / 8; i++)
		bad += w[i] != i * 0x9e3779b97f4a7c15ull;
	printf("{\"program\":\"cxlpoold-check\",\"node\":%d,\"serial\":%llu,\"bytes\":%zu,"
	       "\"pages_on_node_before\":%zu,\"pages_on_node_after\":%zu,\"bad_words\":%zu,"
	       "\"reply\":%s}\n", t[cxl].node, (unsigned long long)t[cxl].serials[0], len,
	       before, after, bad, reply[0] == '{' ? reply : "null");
	return before == len / PAGE && after == 0 && bad == 0 ? 0 : 1;
}
