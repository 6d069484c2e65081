// SPDX-License-Identifier: MIT
/* TAP test of the agent's wire protocol: framing, parsing, formatting. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"
#include "tap.h"

static void feed(struct linebuf *lb, const char *s)
{
	lb_feed(lb, s, strlen(s));
}

static void test_framing(void)
{
	struct linebuf lb;
	char *line;

	lb_init(&lb);
	feed(&lb, "{\"id\":1,");
	is_int(lb_next(&lb, &line), 0, "partial line: nothing yet");
	feed(&lb, "\"cmd\":\"ping\"}\n{\"id\":2}\r\n{\"id\"");
	is_int(lb_next(&lb, &line), 1, "reassembled line is complete");
	is_str(line, "{\"id\":1,\"cmd\":\"ping\"}", "split reads joined");
	free(line);
	is_int(lb_next(&lb, &line), 1, "second line in the same read");
	is_str(line, "{\"id\":2}", "CR of CRLF stripped");
	free(line);
	is_int(lb_next(&lb, &line), 0, "trailing partial kept");
	feed(&lb, ":3}\n");
	lb_next(&lb, &line);
	is_str(line, "{\"id\":3}", "trailing partial completed later");
	free(line);
	lb_free(&lb);
}

static void test_oversize(void)
{
	size_t big = PROTO_MAX_LINE + 10, i;
	char *junk = malloc(big);
	struct linebuf lb;
	char *line;

	memset(junk, 'x', big);
	lb_init(&lb);
	/* Fed in pieces, as reads would deliver it. */
	for (i = 0; i < big; i += 65536)
		lb_feed(&lb, junk + i, big - i < 65536 ? big - i : 65536);
	is_int(lb_next(&lb, &line), -E2BIG, "oversize line rejected");
	ok(lb.len == 0, "oversize data not kept (%zu bytes buffered)", lb.len);
	feed(&lb, "more junk\n{\"id\":9}\n");
	is_int(lb_next(&lb, &line), 1, "next line after the oversize one");
	is_str(line, "{\"id\":9}", "rest of the oversize line skipped");
	free(line);
	/* An oversize line that arrives whole is rejected too. */
	junk[big - 1] = '\n';
	lb_feed(&lb, junk, big);
	feed(&lb, "{}\n");
	is_int(lb_next(&lb, &line), -E2BIG, "whole oversize line rejected");
	is_int(lb_next(&lb, &line), 1, "line after it intact");
	is_str(line, "{}", "line after it read");
	free(line);
	lb_free(&lb);
	free(junk);
}

static void test_parse(void)
{
	struct request r;
	char err[256];

	is_int(proto_parse_request("{\"id\":7,\"cmd\":\"run\",\"args\":{\"program\":\"x\",\"timeout_s\":5}}",
				   &r, err, sizeof(err)), 0, "valid request parses");
	is_int(r.id, 7, "id read");
	is_str(r.cmd, "run", "cmd read");
	is_str(arg_str(r.args, "program", NULL), "x", "string arg");
	is_int(arg_int(r.args, "timeout_s", 0), 5, "int arg");
	is_int(arg_int(r.args, "missing", 42), 42, "missing arg gives default");
	request_free(&r);

	is_int(proto_parse_request("{\"id\":1,\"cmd\":\"ping\"}", &r, err, sizeof(err)),
	       0, "args may be absent");
	ok(r.args && json_object_is_type(r.args, json_type_object), "absent args read as {}");
	request_free(&r);

	is_int(proto_parse_request("{\"id\":1,\"cmd\":", &r, err, sizeof(err)), -1,
	       "truncated JSON rejected");
	ok(!strncmp(err, "invalid JSON", 12), "error says invalid JSON: %s", err);
	request_free(&r);
	is_int(proto_parse_request("[1,2]", &r, err, sizeof(err)), -1, "non-object rejected");
	request_free(&r);
	is_int(proto_parse_request("{\"cmd\":\"ping\"}", &r, err, sizeof(err)), -1,
	       "missing id rejected");
	ok(!r.has_id, "no id to echo");
	request_free(&r);
	is_int(proto_parse_request("{\"id\":3}", &r, err, sizeof(err)), -1,
	       "missing cmd rejected");
	ok(r.has_id && r.id == 3, "id kept for the error reply");
	request_free(&r);
	is_int(proto_parse_request("{\"id\":3,\"cmd\":\"x\",\"args\":[]}", &r, err, sizeof(err)),
	       -1, "non-object args rejected");
	request_free(&r);
}

static void test_format(void)
{
	struct request r;
	json_object *res;
	char err[64], *line;

	proto_parse_request("{\"id\":12,\"cmd\":\"ping\"}", &r, err, sizeof(err));
	res = json_object_new_object();
	json_object_object_add(res, "path", json_object_new_string("a/b\nc"));
	line = proto_reply_ok(&r, res);
	is_str(line, "{\"id\":12,\"ok\":true,\"result\":{\"path\":\"a/b\\nc\"}}\n",
	       "ok reply: one line, newline escaped, slash kept");
	free(line);
	line = proto_reply_err(&r, "no such \"thing\"");
	is_str(line, "{\"id\":12,\"ok\":false,\"error\":\"no such \\\"thing\\\"\"}\n",
	       "error reply");
	free(line);
	request_free(&r);
	line = proto_reply_err(NULL, "bad line");
	is_str(line, "{\"id\":null,\"ok\":false,\"error\":\"bad line\"}\n",
	       "error reply without an id");
	free(line);
	res = json_object_new_object();
	json_object_object_add(res, "msg", json_object_new_string("hi"));
	line = proto_event("log", res);
	is_str(line, "{\"event\":\"log\",\"msg\":\"hi\"}\n", "event line");
	free(line);
}

static void test_hex(void)
{
	unsigned char b[8];
	char err[128], out[17];

	is_int(hex_decode("deadBEEF01", b, sizeof(b), err, sizeof(err)), 5,
	       "hex decodes, either case");
	ok(b[0] == 0xde && b[1] == 0xad && b[2] == 0xbe && b[3] == 0xef && b[4] == 1,
	   "hex bytes right");
	is_int(hex_decode("", b, sizeof(b), err, sizeof(err)), 0, "empty hex is 0 bytes");
	is_int(hex_decode("abc", b, sizeof(b), err, sizeof(err)), -1, "odd length rejected");
	ok(strstr(err, "odd") != NULL, "error says odd: %s", err);
	is_int(hex_decode("12g4", b, sizeof(b), err, sizeof(err)), -1, "non-hex rejected");
	is_str(err, "bad hex digit 'g' at position 2", "error names the digit");
	is_int(hex_decode("0x12", b, sizeof(b), err, sizeof(err)), -1, "0x prefix rejected");
	is_int(hex_decode("1\n", b, sizeof(b), err, sizeof(err)), -1, "control byte rejected");
	is_str(err, "bad hex digit (byte 0x0a) at position 1", "control byte not quoted raw");
	is_int(hex_decode("000102030405060708", b, sizeof(b), err, sizeof(err)), -1,
	       "longer than the buffer rejected");
	ok(strstr(err, "too long") != NULL, "error says too long: %s", err);
	b[0] = 0x00, b[1] = 0x7f, b[2] = 0xa5, b[3] = 0xff;
	hex_encode(b, 4, out);
	is_str(out, "007fa5ff", "hex encodes lower case");
	hex_encode(b, 0, out);
	is_str(out, "", "zero bytes encode to the empty string");
}

int main(void)
{
	plan(48);
	test_framing();
	test_oversize();
	test_parse();
	test_format();
	test_hex();
	return done_testing();
}
