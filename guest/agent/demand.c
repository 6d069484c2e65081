// SPDX-License-Identifier: MIT
/*
 * Demand for pool capacity from inside the guest: any program (cxlpoold,
 * a workload) sends a datagram {"want": BYTES} to /run/cxlbed-demand.sock
 * (negative: capacity it can spare), and the agent serving the fabric
 * manager's port forwards it to the host as {"event":"pool-demand",...}.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "agent.h"
#include "json_util.h"
#include "pool_runtime.h"
#include "proto.h"

int demand_open(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (fd < 0)
		return -1;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", DEMAND_SOCK);
	unlink(DEMAND_SOCK);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

void demand_forward(int fd)
{
	char buf[4096];
	ssize_t n;

	while ((n = recv(fd, buf, sizeof(buf) - 1, 0)) > 0) {
		json_object *msg, *f, *v;
		char *line;

		buf[n] = '\0';
		msg = json_tokener_parse(buf);
		if (!msg || !json_object_object_get_ex(msg, "want", &v)) {
			agent_log("demand: ignored a datagram without \"want\"");
			json_object_put(msg);
			continue;
		}
		f = json_object_new_object();
		jadd_int(f, "bytes", json_object_get_int64(v));
		if (json_object_object_get_ex(msg, "from", &v))
			jadd_str(f, "from", json_object_get_string(v));
		line = proto_event("pool-demand", f);
		if (line)
			chan_send(line);
		free(line);
		json_object_put(msg);
	}
}
