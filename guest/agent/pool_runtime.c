// SPDX-License-Identifier: MIT
/* Requests to cxlpoold (pool_runtime.h): one connection per request. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "json_util.h"
#include "pool_runtime.h"

#define SHORT_TIMEOUT_S 5

/*
 * Send {"cmd": @cmd, "args": @args} and read one reply line until
 * @deadline. Returns the reply's "result" when it has one, else the
 * reply itself; NULL (with @why) when the runtime is absent or silent.
 */
static json_object *ask(const char *cmd, json_object *args, double deadline,
			const char **why)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	json_object *req = json_object_new_object(), *reply = NULL, *inner;
	char buf[65536];
	size_t len = 0;
	const char *line;
	int fd;

	*why = "none";
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", POOL_RUNTIME_SOCK);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		if (fd >= 0)
			close(fd);
		json_object_put(args);
		json_object_put(req);
		return NULL;
	}
	jadd_str(req, "cmd", cmd);
	json_object_object_add(req, "args", args);
	line = json_object_to_json_string_ext(req, JSON_C_TO_STRING_PLAIN);
	*why = "no reply";
	if (write(fd, line, strlen(line)) < 0 || write(fd, "\n", 1) < 0)
		goto out;
	while (len < sizeof(buf) - 1 && !memchr(buf, '\n', len)) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int ms = (int)((deadline - mono_s()) * 1000);
		ssize_t n;

		if (ms <= 0 || poll(&p, 1, ms) <= 0)
			goto out;
		n = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (n <= 0)
			goto out;
		len += n;
	}
	buf[len] = '\0';
	reply = json_tokener_parse(buf);
	*why = reply ? NULL : "bad reply";
	if (reply && json_object_object_get_ex(reply, "result", &inner)) {
		json_object_get(inner);
		json_object_put(reply);
		reply = inner;
	}
out:
	close(fd);
	json_object_put(req);
	return reply;
}

static void put_reply(json_object *res, json_object *reply, const char *why)
{
	if (reply)
		json_object_object_add(res, "runtime", reply);
	else
		jadd_str(res, "runtime", why);
}

void pool_runtime_give_back(unsigned long long serial, double deadline,
			    json_object *res)
{
	json_object *args = json_object_new_object();
	const char *why;
	json_object *reply;

	jadd_int(args, "serial", serial);
	reply = ask("give-back", args, deadline, &why);
	put_reply(res, reply, why);
}

void pool_runtime_took(unsigned long long serial, json_object *res)
{
	json_object *args = json_object_new_object(), *v, *reply;
	const char *why;

	jadd_int(args, "serial", serial);
	if (json_object_object_get_ex(res, "node", &v) && json_object_get_int(v) >= 0 &&
	    !strcmp(json_object_get_string(json_object_object_get(res, "mode")), "ram"))
		jadd_int(args, "node", json_object_get_int(v));
	else if (json_object_object_get_ex(res, "dax", &v))
		jadd_str(args, "dax", json_object_get_string(v));
	if (json_object_object_get_ex(res, "size", &v))
		jadd_int(args, "bytes", json_object_get_int64(v));
	reply = ask("took", args, mono_s() + SHORT_TIMEOUT_S, &why);
	put_reply(res, reply, why);
}

void pool_runtime_usage(unsigned long long serial, json_object *row)
{
	json_object *args = json_object_new_object(), *reply, *v;
	const char *why;

	jadd_int(args, "serial", serial);
	reply = ask("usage", args, mono_s() + SHORT_TIMEOUT_S, &why);
	if (reply && json_object_object_get_ex(reply, "used_bytes", &v))
		jadd_int(row, "used_bytes", json_object_get_int64(v));
	json_object_put(reply);
}
