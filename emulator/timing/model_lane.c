// SPDX-License-Identifier: MIT
#include "model_lane.h"

#include <math.h>
#include <string.h>

void mf_lane_init(struct mf_lane *l, double gbps, double queue_ns)
{
	memset(l, 0, sizeof(*l));
	l->rate = gbps > 0 ? gbps : 0;	/* GB/s is bytes per ns */
	l->queue_ns = queue_ns > 0 ? queue_ns : 0;
	l->window_ns = MF_WINDOW_NS;
	if (l->rate > 0 && MF_WINDOW_LINES * 64 / l->rate > l->window_ns)
		l->window_ns = MF_WINDOW_LINES * 64 / l->rate;
	/* multiplications on the way of every transfer, not divisions */
	l->per_byte = l->rate > 0 ? 1 / l->rate : 0;
	l->rho_per_byte = l->per_byte;
	l->per_window = 1 / l->window_ns;
}

void mf_lane_set_share(struct mf_lane *l, double full_gbps, double share_gbps,
		       double others_gbps)
{
	if (full_gbps <= 0)
		return;
	l->rate = share_gbps;
	l->per_byte = 1 / share_gbps;
	l->rho_per_byte = 1 / full_gbps;
	l->others_rate = others_gbps;
}

double mf_md1_wait(double q, double rho)
{
	if (q <= 0 || rho <= 0)
		return 0;
	if (rho > MF_RHO_MAX)
		rho = MF_RHO_MAX;
	return q * rho / (2 * (1 - rho));
}

/*
 * Flows still waiting at virtual time @v (their last transfer ends
 * later), and the earliest such end, capped at @cap.
 */
static int waiting(const struct mf_lane *l, double v, double cap, double *next)
{
	int n = 0;

	*next = cap;
	for (int f = 0; f < l->nflows; f++)
		if (l->finish[f] > v) {
			n++;
			if (l->finish[f] < *next)
				*next = l->finish[f];
		}
	return n;
}

/*
 * Bring virtual time up to modeled time @t: each waiting flow is served at
 * rate / (flows waiting), and the count drops as flows finish.
 */
static void advance(struct mf_lane *l, double t)
{
	double dt = t - l->at, next;
	int n;

	if (l->nflows == 1) {	/* the loop below for one flow, unrolled */
		if (dt > 0 && l->finish[0] > l->vtime)
			l->vtime = (l->finish[0] - l->vtime) * l->per_byte >= dt ?
				   l->vtime + dt * l->rate : l->finish[0];
		l->at = t;
		return;
	}
	while (dt > 0 && (n = waiting(l, l->vtime, 1.0 / 0.0, &next))) {
		double need = (next - l->vtime) * n * l->per_byte;

		if (need >= dt) {
			l->vtime += n == 1 ? dt * l->rate : dt * l->rate / n;
			break;
		}
		l->vtime = next;
		dt -= need;
	}
	l->at = t;
}

/*
 * When virtual time reaches @end, the flows waiting now going on as they
 * are (a flow that arrives later slows the others from then on: their
 * later transfers see it).
 */
static double time_at(const struct mf_lane *l, double end)
{
	double t = l->at, v = l->vtime, next;

	/* one flow, waiting until @end: the loop below's one step */
	if (l->nflows == 1 && l->finish[0] >= end)
		return v < end ? t + (end - v) * l->per_byte : t;
	while (v < end) {
		int n = waiting(l, v, end, &next);

		t += (next - v) * (n ? n : 1) * l->per_byte;
		v = next;
	}
	return t;
}

/* e^-x for x >= 0; the series where x is small (nearly every request). */
static double decay(double x)
{
	if (x < 1.0 / 64)
		return 1 - x * (1 - x * (0.5 - x * (1.0 / 6)));
	return x > 40 ? 0 : exp(-x);
}

/*
 * Bytes that arrived over about the last window, before this request: an
 * exponentially decaying sum, which for a steady arrival rate r holds
 * r * window, as a sliding window would. An earlier form counted bytes in
 * windows with fixed edges (k * window); the same stream then waited 1.02
 * or 1.21 ms of 2.6 ms depending only on where its start fell against an
 * edge (host-load.t's 2cpu stream, 6.41 vs 6.32 GB/s).
 */
static double recent_bytes(struct mf_lane *l, double t)
{
	if (t > l->recent_at) {
		l->recent *= decay((t - l->recent_at) * l->per_window);
		l->recent_at = t;
	}
	return l->recent;
}

struct mf_grant mf_lane_take(struct mf_lane *l, int flow, double t,
			     uint32_t bytes)
{
	struct mf_grant g = { t, 0 };
	double start, end, late;

	if (l->rate <= 0)
		return g;
	if (flow < 0 || flow >= MF_FLOWS)
		flow = 0;
	if (flow >= l->nflows) {
		for (int f = l->nflows; f <= flow; f++)
			l->finish[f] = 0;
		l->nflows = flow + 1;
	}
	/*
	 * From before the lane's present (a requester that was not using it,
	 * catching up): it queues behind what is queued now, but does not
	 * lose the time it is behind.
	 */
	late = t < l->at ? l->at - t : 0;
	t += late;
	advance(l, t);
	if (l->queue_ns > 0)
		g.queue = mf_md1_wait(l->queue_ns, (recent_bytes(l, t) *
				      l->per_window + l->others_rate) *
				      l->rho_per_byte);
	l->recent += bytes;
	start = l->finish[flow] > l->vtime ? l->finish[flow] : l->vtime;
	end = start + bytes;
	l->finish[flow] = end;
	/* less the time to send it at the resource's full rate (not a share's) */
	g.pass = time_at(l, end) - bytes * l->rho_per_byte - late;
	if (g.pass < t - late)	/* rounding: never before the request */
		g.pass = t - late;
	return g;
}
