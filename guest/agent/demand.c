// SPDX-License-Identifier: MIT
/*
 * Demand for pool capacity from inside the guest: any program (cxlpoold,
 * a workload) sends a datagram {"want": BYTES} to /run/cxlbed-demand.sock
 * (negative: capacity it can spare; optional "mode": "devdax" and
 * "avoid": [pools]), and the agent serving the fabric manager's port
 * forwards it to the host as {"event":"pool-demand",...}. A datagram
 * {"fault": {...}} (a runtime's account of a failure it found) goes to the
 * host as {"event":"fault-report",...}, and {"phase": NAME} (a program's
 * own phase began) as {"event":"guest-phase",...} (docs/faults.md).
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
		if (msg && json_object_object_get_ex(msg, "fault", &v) &&
		    json_object_is_type(v, json_type_object)) {
			/* a runtime's account of a failure it found: to the host as is */
			line = proto_event("fault-report", json_object_get(v));
			if (line)
				chan_send(line);
			free(line);
			json_object_put(msg);
			continue;
		}
		if (msg && json_object_object_get_ex(msg, "phase", &v)) {
			/* a program's own phase began (a fault may wait for it) */
			f = json_object_new_object();
			jadd_str(f, "phase", json_object_get_string(v));
			if (json_object_object_get_ex(msg, "from", &v))
				jadd_str(f, "from", json_object_get_string(v));
			line = proto_event("guest-phase", f);
			if (line)
				chan_send(line);
			free(line);
			json_object_put(msg);
			continue;
		}
		if (!msg || !json_object_object_get_ex(msg, "want", &v)) {
			agent_log("demand: ignored a datagram without \"want\"");
			json_object_put(msg);
			continue;
		}
		f = json_object_new_object();
		jadd_int(f, "bytes", json_object_get_int64(v));
		if (json_object_object_get_ex(msg, "from", &v))
			jadd_str(f, "from", json_object_get_string(v));
		/* what kind of capacity: devdax or ram, and pools it must not come from */
		if (json_object_object_get_ex(msg, "mode", &v))
			jadd_str(f, "mode", json_object_get_string(v));
		if (json_object_object_get_ex(msg, "avoid", &v) &&
		    json_object_is_type(v, json_type_array))
			json_object_object_add(f, "avoid", json_object_get(v));
		line = proto_event("pool-demand", f);
		if (line)
			chan_send(line);
		free(line);
		json_object_put(msg);
	}
}
