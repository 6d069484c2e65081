/* SPDX-License-Identifier: MIT */
/*
 * A policy that failed before the workload checked its result stays
 * failed (pw_verify): damon's kdamonds refused to start on 7.3 (DAMON_STAT
 * held DAMON, docs/pooling.md) and the workload's own check then said ok.
 */
#include "pw.h"
#include "tap.h"

#include <string.h>

static struct pw w;

int main(void)
{
	plan(4);
	w.ok = true;
	pw_verify(&w, true, "sums match: %d", 7);
	ok(w.ok && !strcmp(w.verify, "sums match: 7"), "a run that verified: ok, the check says so");
	memset(&w, 0, sizeof(w));
	w.ok = true;
	pw_verify(&w, false, "sums differ");
	ok(!w.ok && !strcmp(w.verify, "sums differ"), "a run that did not: not ok");
	memset(&w, 0, sizeof(w));
	w.ok = true;
	pw_fail(&w, "starting damon: write 'on' to .../state: Device or resource busy");
	pw_verify(&w, true, "sums match");
	ok(!w.ok, "a policy that did not start, then a result that verifies: still not ok");
	is_str(w.verify, "starting damon: write 'on' to .../state: Device or resource busy; "
	       "then sums match", "the failure first, the check after it");
	return done_testing();
}
