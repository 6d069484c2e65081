// SPDX-License-Identifier: MIT
/*
 * The guest clock device's server side, read back the way QEMU's
 * ivshmem-doorbell reads it: version, our id, the shared page, then one
 * eventfd per vector; ringing a vector makes its eventfd readable.
 */
#include <stdint.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "clock_dev.h"

/* One message: the int64 and the descriptor that came with it (-1: none). */
static int64_t recv_msg(int sock, int *fd)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctl;
	int64_t v = INT64_MIN;
	struct iovec iov = { &v, sizeof(v) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = ctl.buf,
			    .msg_controllen = sizeof(ctl.buf) };
	struct cmsghdr *c;

	*fd = -1;
	if (recvmsg(sock, &m, 0) != sizeof(v))
		return INT64_MIN;
	c = CMSG_FIRSTHDR(&m);
	if (c && c->cmsg_type == SCM_RIGHTS)
		memcpy(fd, CMSG_DATA(c), sizeof(*fd));
	return v;
}

int main(void)
{
	struct clock_dev d;
	struct cxlbed_clock_page *pg;
	struct stat st;
	int sp[2], fd, efd[3], all_vectors = 1;
	uint64_t count = 0;
	char *err = NULL;
	int64_t v;

	plan(9);
	socketpair(AF_UNIX, SOCK_STREAM, 0, sp);
	ok(clock_dev_serve(&d, sp[1], 3, &err), "serves 3 vectors%s%s",
	   err ? ": " : "", err ? err : "");
	v = recv_msg(sp[0], &fd);
	ok(v == 0 && fd < 0, "protocol version 0 first, no descriptor");
	v = recv_msg(sp[0], &fd);
	ok(v == 0 && fd < 0, "then QEMU's peer id, 0");
	v = recv_msg(sp[0], &fd);
	ok(v == -1 && fd >= 0 && !fstat(fd, &st) &&
	   st.st_size == CXLBED_CLOCK_PAGE,
	   "then the shared memory (-1 + a %d-byte file)", CXLBED_CLOCK_PAGE);
	pg = mmap(NULL, CXLBED_CLOCK_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED,
		  fd, 0);
	ok(pg != MAP_FAILED && pg->magic == CXLBED_CLOCK_MAGIC &&
	   pg->version == CXLBED_CLOCK_VERSION && pg->ncpus == 3,
	   "the page says what it is and how many CPUs it serves");
	pg->cpu[1].arg = 12345;
	ok(d.page->cpu[1].arg == 12345, "the same bytes on both sides");
	for (int i = 0; i < 3; i++) {
		v = recv_msg(sp[0], &efd[i]);
		all_vectors &= v == 0 && efd[i] >= 0;
	}
	ok(all_vectors, "one eventfd of peer 0 per vector");
	clock_dev_ring(&d, 2);
	ok(clock_dev_pending(&d, 2) && !clock_dev_pending(&d, 1) &&
	   read(efd[2], &count, sizeof(count)) == sizeof(count) && count == 1,
	   "ringing vector 2 makes its eventfd (only) readable");
	ok(!clock_dev_pending(&d, 2), "taken by the reader: no longer pending");
	return done_testing();
}
