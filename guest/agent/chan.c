// SPDX-License-Identifier: MIT
/*
 * The agent's channel: the virtio-serial port named org.cxlbed.agent.
 * There is no udev in the guest, so the port is found by name under
 * /sys/class/virtio-ports and its device node made if devtmpfs lacks it.
 */
#include <dirent.h>
#include <limits.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "agent.h"
#include "proto.h"

#define PORTS_DIR "/sys/class/virtio-ports"
#define SEND_TIMEOUT_MS 10000

static int chan_fd = -1;

/* Find the port's device name (vportNpM); 0 on success. */
static int find_port(const char *name, char *dev, size_t len)
{
	struct dirent *de;
	char path[512], val[256];
	DIR *d = opendir(PORTS_DIR);
	int rc = -1;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), PORTS_DIR "/%s/name", de->d_name);
		if (sysfs_read(path, val, sizeof(val)) == 0 && !strcmp(val, name)) {
			snprintf(dev, len, "%s", de->d_name);
			rc = 0;
			break;
		}
	}
	closedir(d);
	return rc;
}

bool chan_exists(const char *name)
{
	char dev[NAME_MAX + 1];

	return find_port(name, dev, sizeof(dev)) == 0;
}

int chan_open(const char *name)
{
	char dev[NAME_MAX + 1], node[NAME_MAX + 8], path[NAME_MAX + 64], val[64];
	unsigned int maj, min;

	if (find_port(name, dev, sizeof(dev)) < 0)
		return -1;
	snprintf(node, sizeof(node), "/dev/%s", dev);
	if (access(node, F_OK) < 0) {
		snprintf(path, sizeof(path), PORTS_DIR "/%s/dev", dev);
		if (sysfs_read(path, val, sizeof(val)) < 0 ||
		    sscanf(val, "%u:%u", &maj, &min) != 2)
			return -1;
		if (mknod(node, S_IFCHR | 0600, makedev(maj, min)) < 0 &&
		    errno != EEXIST)
			return -1;
	}
	/* Non-blocking: a write blocks while no host end is connected. */
	chan_fd = open(node, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	return chan_fd;
}

int chan_send(const char *line)
{
	size_t off = 0, len = strlen(line);

	if (chan_fd < 0)
		return -1;
	while (off < len) {
		ssize_t n = write(chan_fd, line + off, len - off);

		if (n > 0) {
			off += n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			struct pollfd p = { .fd = chan_fd, .events = POLLOUT };

			if (poll(&p, 1, SEND_TIMEOUT_MS) > 0 &&
			    !(p.revents & (POLLHUP | POLLERR)))
				continue;
		}
		/* No host, or it stopped reading: drop what is left. */
		return -1;
	}
	return 0;
}

void agent_log(const char *fmt, ...)
{
	char msg[1024];
	json_object *f;
	va_list ap;
	char *line;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "cxlbed-agent: %s\n", msg);
	f = json_object_new_object();
	json_object_object_add(f, "msg", json_object_new_string(msg));
	line = proto_event("log", f);
	if (line)
		chan_send(line);
	free(line);
}
