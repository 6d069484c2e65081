// SPDX-License-Identifier: MIT
/*
 * cxlbed-agent: runs inside the guest, started (and respawned) by init.
 * Serves the host over the virtio-serial port: one request at a time, in
 * order, each answered by exactly one reply line (docs/agent-protocol.md).
 * `cxlbed-agent --port org.cxlbed.fm` is a second instance for the fabric
 * manager, so that an LD can be attached or released while a workload
 * runs under the first; it also forwards guest programs' pool demand.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/reboot.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "ld_faults.h"
#include "pool_runtime.h"
#include "proto.h"

static json_object *cmd_ping(json_object *args, char *err)
{
	return json_object_new_object();
}

static const struct {
	const char *name;
	cmd_fn fn;
} commands[] = {
	{ "ping", cmd_ping },
	{ "enumerate", cmd_enumerate },
	{ "create-region", cmd_create_region },
	{ "run", cmd_run },
	{ "dax-write", cmd_dax_write },
	{ "dax-read", cmd_dax_read },
	{ "attach-ld", cmd_attach_ld },
	{ "release-ld", cmd_release_ld },
	{ "ld-usage", cmd_ld_usage },
	{ "ld-fault", cmd_ld_fault },
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* What boot_regions() made, reported in every hello; NULL: none asked for. */
static json_object *boot_results;

static void send_hello(void)
{
	json_object *f = json_object_new_object();
	struct utsname u;
	char *line;

	uname(&u);
	json_object_object_add(f, "agent", json_object_new_string("cxlbed-agent"));
	json_object_object_add(f, "version", json_object_new_int(PROTO_VERSION));
	json_object_object_add(f, "kernel", json_object_new_string(u.release));
	json_object_object_add(f, "uptime_s", json_object_new_double(uptime_s()));
	if (boot_results)
		json_object_object_add(f, "boot_regions", json_object_get(boot_results));
	line = proto_event("hello", f);
	if (line)
		chan_send(line);
	free(line);
}

static void poweroff_now(void)
{
	sync();
	reboot(RB_POWER_OFF);
	_exit(1);	/* only reached when not allowed to power off */
}

static void handle_line(const char *line)
{
	char err[ERRLEN] = "";
	struct request req;
	json_object *result = NULL;
	char *reply;
	size_t i;
	bool off = false;

	if (proto_parse_request(line, &req, err, sizeof(err)) < 0) {
		reply = proto_reply_err(&req, err);
		goto out;
	}
	if (!strcmp(req.cmd, "poweroff")) {
		off = true;
		reply = proto_reply_ok(&req, NULL);
		goto out;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(req.cmd, commands[i].name))
			break;
	if (i == sizeof(commands) / sizeof(commands[0])) {
		snprintf(err, sizeof(err), "unknown command '%s'", req.cmd);
		reply = proto_reply_err(&req, err);
		goto out;
	}
	result = commands[i].fn(req.args, err);
	if (result)
		reply = proto_reply_ok(&req, result);
	else
		reply = proto_reply_err(&req, err[0] ? err : "failed");
out:
	if (reply)
		chan_send(reply);
	free(reply);
	request_free(&req);
	if (off)
		poweroff_now();
}

/*
 * The fabric manager's port exists only on hosts that may receive pool
 * capacity: once the main port is there (ports enumerated), an instance
 * for an absent port idles rather than being respawned over and over.
 */
static void idle_if_absent(const char *port)
{
	if (!strcmp(port, AGENT_PORT_NAME))
		return;
	while (!chan_exists(AGENT_PORT_NAME))
		usleep(100000);
	if (chan_exists(port))
		return;
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	const char *port = argc == 3 && !strcmp(argv[1], "--port") ? argv[2] :
			   AGENT_PORT_NAME;
	struct linebuf lb;
	bool greeted = false;	/* a request arrived: stop the hellos */
	double next_hello = 0;
	char buf[65536];
	int fd, waited = 0, demand = -1;

	signal(SIGPIPE, SIG_IGN);
	setvbuf(stderr, NULL, _IOLBF, 0);
	idle_if_absent(port);
	/* regions named at boot: the main instance makes them, once */
	if (!strcmp(port, AGENT_PORT_NAME))
		boot_results = boot_regions();
	while ((fd = chan_open(port)) < 0) {
		if (waited++ == 50)
			fprintf(stderr, "cxlbed-agent: waiting for virtio port %s\n",
				port);
		usleep(100000);
	}
	if (!strcmp(port, AGENT_FM_PORT_NAME))
		demand = demand_open();
	fprintf(stderr, "cxlbed-agent: %s ready at %.2fs\n", port, uptime_s());
	lb_init(&lb);
	for (;;) {
		struct pollfd pd[2] = { { .fd = fd, .events = POLLIN },
					{ .fd = demand, .events = POLLIN } };
		struct pollfd *p = &pd[0];
		int timeout = -1;

		if (!greeted) {
			double t = now_s();

			if (t >= next_hello) {
				send_hello();
				next_hello = t + 1.0;
			}
			timeout = (int)((next_hello - t) * 1000) + 1;
		}
		if (poll(pd, demand >= 0 ? 2 : 1, timeout) < 0 && errno != EINTR)
			return 1;
		if (demand >= 0 && (pd[1].revents & POLLIN))
			demand_forward(demand);
		if (p->revents & POLLIN) {
			ssize_t n = read(fd, buf, sizeof(buf));
			char *line;
			int rc;

			if (n > 0) {
				lb_feed(&lb, buf, n);
				while ((rc = lb_next(&lb, &line)) != 0) {
					/* a host that missed our hellos asks: greet first */
					if (!greeted)
						send_hello();
					greeted = true;
					if (rc == -E2BIG) {
						char *r = proto_reply_err(NULL,
							"request line longer than 1 MiB");
						chan_send(r);
						free(r);
						continue;
					}
					if (rc < 0)
						break;
					handle_line(line);
					free(line);
				}
				continue;
			}
			if (n < 0 && (errno == EAGAIN || errno == EINTR))
				continue;
		}
		if (p->revents & (POLLHUP | POLLERR | POLLIN)) {
			/*
			 * No host end: poll reports HUP at once, so pace the
			 * retries, and greet whoever connects next.
			 */
			lb_free(&lb);
			greeted = false;
			next_hello = 0;
			usleep(100000);
		}
	}
}
