/* SPDX-License-Identifier: MIT */
#include "qemu/jsonline.h"
#include "common/json_read.h"
#include "common/json_write.h"
#include "qemu/process.h"

#include <errno.h>
#include <gio/gio.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/*
 * cxlbed got SIGINT/SIGTERM/SIGHUP (process.h): what it was waiting for
 * (@doing, on @path if given) ends now, whatever its deadline.
 */
static bool interrupted(GError **error, const char *doing, const char *path)
{
	int sig = qemu_proc_interrupted();

	if (!sig)
		return false;
	g_set_error(error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "%s%s%s: interrupted by SIG%s",
		    doing, path ? " " : "", path ? path : "", sigabbrev_np(sig));
	return true;
}

int jsonline_connect_unix(const char *path, gint64 deadline_us, GError **error)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	if (strlen(path) >= sizeof(sa.sun_path)) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_FILENAME_TOO_LONG,
			    "socket path too long (%zu bytes, max %zu): %s",
			    strlen(path), sizeof(sa.sun_path) - 1, path);
		return -1;
	}
	strcpy(sa.sun_path, path);
	for (;;) {
		int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (fd < 0) {
			g_set_error(error, G_IO_ERROR, g_io_error_from_errno(errno),
				    "socket: %s", g_strerror(errno));
			return -1;
		}
		if (!connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
			return fd;
		int err = errno;

		close(fd);
		/* a QEMU stopped on Ctrl-C leaves its socket behind: stop retrying */
		if (interrupted(error, "connect", path))
			return -1;
		if ((err != ENOENT && err != ECONNREFUSED) ||
		    g_get_monotonic_time() >= deadline_us) {
			g_set_error(error, G_IO_ERROR, g_io_error_from_errno(err),
				    "connect %s: %s", path, g_strerror(err));
			return -1;
		}
		g_usleep(20 * 1000);
	}
}

struct jsonline *jsonline_new(int fd, FILE *log, const char *log_tag)
{
	struct jsonline *c = g_new0(struct jsonline, 1);

	c->fd = fd;
	c->buf = g_byte_array_new();
	c->log = log;
	c->log_tag = log_tag;
	return c;
}

void jsonline_free(struct jsonline *c)
{
	if (!c)
		return;
	if (c->fd >= 0)
		close(c->fd);
	g_byte_array_unref(c->buf);
	g_free(c);
}

void jsonline_feed(struct jsonline *c, const void *data, gsize len)
{
	g_byte_array_append(c->buf, data, len);
}

bool jsonline_echo;

static void log_line(struct jsonline *c, const char *dir, const char *line)
{
	if (jsonline_echo)
		fprintf(stderr, "\r  %s %s %s\n", c->log_tag ? c->log_tag : "",
			dir, line);
	if (!c->log)
		return;
	gint64 now = g_get_real_time();

	fprintf(c->log, "%" G_GINT64_FORMAT ".%06d %s %s %s\n",
		now / G_USEC_PER_SEC, (int)(now % G_USEC_PER_SEC),
		c->log_tag ? c->log_tag : "", dir, line);
	fflush(c->log);
}

/*
 * Pop one line (without '\n') from the buffer, or NULL if none is
 * complete; *nul: it held a NUL byte (a C string would end there).
 */
static char *take_line(struct jsonline *c, bool *nul)
{
	/* an empty GByteArray may have no data at all: memchr(NULL) is UB */
	guint8 *nl = c->buf->len ? memchr(c->buf->data, '\n', c->buf->len) : NULL;
	char *line;
	gsize n;

	if (!nl)
		return NULL;
	n = nl - c->buf->data;
	*nul = memchr(c->buf->data, 0, n) != NULL;
	line = g_strndup((char *)c->buf->data, n);
	g_byte_array_remove_range(c->buf, 0, n + 1);
	return line;
}

static bool fill(struct jsonline *c, gint64 deadline_us, GError **error)
{
	guint8 tmp[65536];
	struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
	gint64 left = deadline_us - g_get_monotonic_time();
	ssize_t n;
	int r;

	if (c->eof || c->fd < 0) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_CONNECTION_CLOSED,
			    "connection closed");
		return false;
	}
	if (left < 0)
		left = 0;
	do {
		r = poll(&pfd, 1, (int)MIN(left / 1000, G_MAXINT));
		if (r < 0 && errno == EINTR && interrupted(error, "waiting for a message", NULL))
			return false;
	} while (r < 0 && errno == EINTR && g_get_monotonic_time() < deadline_us);
	if (r == 0 || (r < 0 && errno == EINTR)) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
			    "timed out waiting for a message");
		return false;
	}
	n = read(c->fd, tmp, sizeof(tmp));
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return true;
	if (n <= 0) {
		c->eof = true;
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_CONNECTION_CLOSED,
			    n == 0 ? "connection closed by peer" : "read: %s",
			    g_strerror(errno));
		return false;
	}
	g_byte_array_append(c->buf, tmp, n);
	return true;
}

char *jsonline_read_line(struct jsonline *c, gint64 deadline_us, GError **error)
{
	for (;;) {
		bool nul = false;
		g_autofree char *line = take_line(c, &nul);

		if (!line) {
			if (c->buf->len > JSONLINE_MAX) {
				g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
					    "message longer than %u bytes", JSONLINE_MAX);
				g_byte_array_set_size(c->buf, 0);
				return NULL;
			}
			if (!fill(c, deadline_us, error))
				return NULL;
			continue;
		}
		g_strstrip(line);
		if (!*line && !nul)
			continue;
		log_line(c, "<-", line);
		if (nul) {
			g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
				    "a NUL byte in the message");
			return NULL;
		}
		if (strlen(line) > JSONLINE_MAX) {
			g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
				    "message longer than %u bytes", JSONLINE_MAX);
			return NULL;
		}
		return g_steal_pointer(&line);
	}
}

JsonObject *jsonline_parse(const char *line, gsize len, GError **error)
{
	g_autoptr(GError) err = NULL;
	g_autoptr(JsonNode) root = memchr(line, 0, len) ? NULL :
		json_read_text("message", line, len, &err);

	if (!root || !JSON_NODE_HOLDS_OBJECT(root)) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
			    "not a JSON object line: %s", err ? err->message :
			    root ? json_read_type_name(root) : "a NUL byte in it");
		return NULL;
	}
	return json_object_ref(json_node_get_object(root));
}

JsonObject *jsonline_read(struct jsonline *c, gint64 deadline_us, GError **error)
{
	g_autofree char *line = jsonline_read_line(c, deadline_us, error);

	return line ? jsonline_parse(line, strlen(line), error) : NULL;
}

char *json_object_to_line(JsonObject *obj)
{
	g_autoptr(JsonNode) node = json_node_new(JSON_NODE_OBJECT);

	json_node_set_object(node, obj);
	return json_write_text(node, false);
}

bool jsonline_write(struct jsonline *c, JsonObject *obj, GError **error)
{
	g_autofree char *line = json_object_to_line(obj);
	g_autofree char *framed = g_strconcat(line, "\n", NULL);
	gsize len = strlen(framed), off = 0;

	log_line(c, "->", line);
	while (off < len) {
		ssize_t n = send(c->fd, framed + off, len - off, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			g_set_error(error, G_IO_ERROR, g_io_error_from_errno(errno),
				    "write: %s", g_strerror(errno));
			return false;
		}
		off += n;
	}
	return true;
}
