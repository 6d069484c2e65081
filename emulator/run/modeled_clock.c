/* SPDX-License-Identifier: MIT */
#include "run/modeled_clock.h"
#include "timing/shm_links.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

double modeled_slots_now(const uint64_t *slot, const uint32_t *halted, int n)
{
	uint64_t running = 0, deadline = 0;

	for (int i = 0; i < n; i++) {
		uint64_t v = __atomic_load_n(&slot[i], __ATOMIC_ACQUIRE);

		if (!v)
			continue;
		if (!__atomic_load_n(&halted[i], __ATOMIC_RELAXED))
			running = v > running ? v : running;
		else if (!deadline || v < deadline)
			deadline = v;
	}
	if (running)
		return (double)(running - 1);
	return deadline ? (double)(deadline - 1) : -1;
}

double modeled_clock_host_ns(const char *shm, int host_index, int vcpus)
{
	const struct tm_shared *s;
	int fd = shm ? shm_open(shm, O_RDONLY | O_CLOEXEC, 0) : -1;
	struct stat st;
	double ns = -1;

	if (fd < 0)
		return -1;
	/* the first plugin sizes the segment when its QEMU starts */
	if (fstat(fd, &st) < 0 || (size_t)st.st_size < sizeof(*s) || host_index < 0 ||
	    host_index >= TM_MAX_HOSTS || vcpus < 1 || vcpus > TM_MAX_VCPUS) {
		close(fd);
		return -1;
	}
	s = mmap(NULL, sizeof(*s), PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (s == MAP_FAILED)
		return -1;
	if (s->magic == TM_SHM_MAGIC)
		ns = modeled_slots_now(&s->slot[host_index * TM_MAX_VCPUS],
				       &s->halted[host_index * TM_MAX_VCPUS], vcpus);
	munmap((void *)s, sizeof(*s));
	return ns;
}
