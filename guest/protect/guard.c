// SPDX-License-Identifier: MIT
#include "guard.h"

#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/prctl.h>

#define QUEUE 64

/* volatile: the compiler must not move these past the memcpy it knows */
static __thread sigjmp_buf *volatile active;
static __thread struct guard_fault *volatile active_out;

/* AO reports: written by the handler, taken by the store's thread. */
static struct {
	struct guard_fault f;
	atomic_int full;
} queue[QUEUE];
static atomic_uint q_head, q_tail, q_overflow;

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (si->si_code == BUS_MCEERR_AO) {
		unsigned int h = atomic_load(&q_head);

		do {
			if (h - atomic_load(&q_tail) >= QUEUE) {
				atomic_fetch_add(&q_overflow, 1);
				return;
			}
		} while (!atomic_compare_exchange_weak(&q_head, &h, h + 1));
		queue[h % QUEUE].f.addr = (uintptr_t)si->si_addr;
		queue[h % QUEUE].f.code = si->si_code;
		queue[h % QUEUE].f.lsb = si->si_addr_lsb;
		atomic_store(&queue[h % QUEUE].full, 1);
		return;
	}
	if (active) {
		if (active_out) {
			active_out->addr = (uintptr_t)si->si_addr;
			active_out->code = si->si_code;
			active_out->lsb = (si->si_code == BUS_MCEERR_AR) ?
				si->si_addr_lsb : 0;
		}
		siglongjmp(*active, 1);
	}
	/* Not in a guarded copy: a real bug, die as without the handler. */
	signal(sig, SIG_DFL);
	raise(sig);
}

int guard_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigbus;
	/* NODEFER: a long jump out leaves SIGBUS unblocked (sigsetjmp(.., 0)) */
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, &sa, NULL))
		return -1;
	/* report poisoned pages we map at once (AO), not only on access */
	prctl(PR_MCE_KILL, PR_MCE_KILL_SET, PR_MCE_KILL_EARLY, 0, 0);
	return 0;
}

int guard_copy(void *dst, const void *src, size_t len, struct guard_fault *f)
{
	sigjmp_buf jb;

	if (sigsetjmp(jb, 0)) {
		active = NULL;
		active_out = NULL;
		return -1;
	}
	active_out = f;
	active = &jb;
	__asm__ __volatile__("" ::: "memory");
	memcpy(dst, src, len);
	__asm__ __volatile__("" ::: "memory");
	active = NULL;
	active_out = NULL;
	return 0;
}

int guard_take_poison(struct guard_fault *out, int max)
{
	int n = 0;

	while (n < max) {
		unsigned int t = atomic_load(&q_tail);

		if (t == atomic_load(&q_head) || !atomic_load(&queue[t % QUEUE].full))
			break;
		out[n++] = queue[t % QUEUE].f;
		atomic_store(&queue[t % QUEUE].full, 0);
		atomic_store(&q_tail, t + 1);
	}
	return n;
}

unsigned int guard_poison_overflows(void)
{
	return atomic_load(&q_overflow);
}
