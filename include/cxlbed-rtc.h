/* SPDX-License-Identifier: MIT */
/*
 * Host time for guest programs (include it; no library needed). With the
 * modeled guest clock an idle guest's time runs far ahead of the host's,
 * so a wait for something the host does (a hot-added device, a test that
 * acts from outside) is bounded by the RTC instead: QEMU keeps the RTC on
 * the host's clock whatever the guest's own clock does. Whole seconds.
 */
#ifndef CXLBED_RTC_H
#define CXLBED_RTC_H

#include <errno.h>
#include <fcntl.h>
#include <linux/rtc.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

/*
 * Seconds since the epoch on the RTC; -1 when it cannot be read. The RTC
 * device has one opener at a time (EBUSY for others): it is opened for
 * each read and closed at once, so that programs can share it.
 */
static inline long long cxlbed_rtc_seconds(void)
{
	int fd = -1, rc;
	struct rtc_time t;
	struct tm tm = { 0 };

	for (int tries = 0; fd < 0 && tries < 100; tries++) {
		fd = open("/dev/rtc0", O_RDONLY | O_CLOEXEC);
		if (fd < 0 && errno != EBUSY)
			return -1;
		if (fd < 0)
			usleep(10000);	/* another program is reading it */
	}
	if (fd < 0)
		return -1;
	rc = ioctl(fd, RTC_RD_TIME, &t);
	close(fd);
	if (rc)
		return -1;
	tm.tm_sec = t.tm_sec;
	tm.tm_min = t.tm_min;
	tm.tm_hour = t.tm_hour;
	tm.tm_mday = t.tm_mday;
	tm.tm_mon = t.tm_mon;
	tm.tm_year = t.tm_year;
	return (long long)timegm(&tm);
}

#endif
