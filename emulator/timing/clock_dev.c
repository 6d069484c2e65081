// SPDX-License-Identifier: MIT
#include "clock_dev.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

static bool fail(char **err, const char *what)
{
	char *s = malloc(160);

	if (s)
		snprintf(s, 160, "guest clock device: %s: %s", what,
			 strerror(errno));
	*err = s;
	return false;
}

/* One protocol message: a little-endian int64, maybe with an fd. */
static bool send_msg(int sock, int64_t value, int fd)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctl;
	struct iovec iov = { &value, sizeof(value) };	/* x86: already LE */
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (fd >= 0) {
		struct cmsghdr *c;

		memset(&ctl, 0, sizeof(ctl));
		m.msg_control = ctl.buf;
		m.msg_controllen = sizeof(ctl.buf);
		c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(fd));
	}
	return sendmsg(sock, &m, MSG_NOSIGNAL) == (ssize_t)sizeof(value);
}

bool clock_dev_serve(struct clock_dev *d, int sock, int nvec, char **err)
{
	int mfd;

	memset(d, 0, sizeof(*d));
	d->sock = sock;
	d->nvec = nvec;
	if (nvec < 1 || nvec > CXLBED_CLOCK_MAX_CPUS) {
		errno = EINVAL;
		return fail(err, "vCPU count");
	}
	mfd = memfd_create("cxlbed-clock", MFD_CLOEXEC);
	if (mfd < 0 || ftruncate(mfd, CXLBED_CLOCK_PAGE) < 0)
		return fail(err, "memfd");
	d->page = mmap(NULL, CXLBED_CLOCK_PAGE, PROT_READ | PROT_WRITE,
		       MAP_SHARED, mfd, 0);
	if (d->page == MAP_FAILED) {
		close(mfd);
		return fail(err, "mmap");
	}
	d->page->magic = CXLBED_CLOCK_MAGIC;
	d->page->version = CXLBED_CLOCK_VERSION;
	d->page->ncpus = nvec;
	for (int i = 0; i < nvec; i++) {
		d->efd[i] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (d->efd[i] < 0)
			return fail(err, "eventfd");
	}
	/* version, our id, the memory (the last one QEMU reads in realize) */
	if (!send_msg(sock, 0, -1) || !send_msg(sock, 0, -1) ||
	    !send_msg(sock, -1, mfd)) {
		close(mfd);
		return fail(err, "sending the set-up to QEMU");
	}
	close(mfd);	/* the message in flight holds its own reference */
	/* the N-th eventfd of peer 0 (us) is vector N */
	for (int i = 0; i < nvec; i++)
		if (!send_msg(sock, 0, d->efd[i]))
			return fail(err, "sending vector eventfds");
	return true;
}

void clock_dev_ring(struct clock_dev *d, int vec)
{
	uint64_t one = 1;

	if (write(d->efd[vec], &one, sizeof(one)) < 0 && errno != EAGAIN)
		perror("cxlbed-timing: clock interrupt");
}

bool clock_dev_pending(const struct clock_dev *d, int vec)
{
	struct pollfd p = { .fd = d->efd[vec], .events = POLLIN };

	return poll(&p, 1, 0) > 0 && (p.revents & POLLIN);
}
