/* SPDX-License-Identifier: MIT */
/* Kernels for the layer sweep, KV attention and Adam workloads. */
#include <math.h>

#include "gpu.h"
#include "kernels.h"

__device__ static inline uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

__global__ static void fill_kernel(float *p, size_t n, uint64_t seed, float scale)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x) {
		uint64_t r = mix64(seed * 0x9e3779b97f4a7c15ull + i);

		p[i] = scale * ((float)(r >> 40) / (float)(1 << 24) * 2.0f - 1.0f);
	}
}

void k_fill(float *p, size_t n, uint64_t seed, float scale, cudaStream_t s)
{
	fill_kernel<<<1024, 256, 0, s>>>(p, n, seed, scale);
	CK(cudaGetLastError());
}

/* 64x64 output tile per block, 16-deep k slices, 4x4 per thread. */
#define TM 64
#define TN 64
#define TK 16

__global__ static void layer_kernel(const float *__restrict__ x,
				    const float *__restrict__ w,
				    float *__restrict__ y, int k, int n)
{
	__shared__ float xs[TK][TM + 4];
	__shared__ float ws[TK][TN];
	int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
	int row0 = blockIdx.y * TM, col0 = blockIdx.x * TN;
	float acc[4][4] = {};

	for (int k0 = 0; k0 < k; k0 += TK) {
		/* 256 threads load 64x16 of x and 16x64 of w: 4 each. */
		for (int i = 0; i < 4; i++) {
			int e = threadIdx.x + i * 256;
			int r = e / TK, c = e % TK;

			xs[c][r] = x[(size_t)(row0 + r) * k + k0 + c];
			r = e / TN;
			c = e % TN;
			ws[r][c] = w[(size_t)(k0 + r) * n + col0 + c];
		}
		__syncthreads();
		for (int kk = 0; kk < TK; kk++) {
			float a[4], b[4];

			for (int i = 0; i < 4; i++) {
				a[i] = xs[kk][ty * 4 + i];
				b[i] = ws[kk][tx * 4 + i];
			}
			for (int i = 0; i < 4; i++)
				for (int jj = 0; jj < 4; jj++)
					acc[i][jj] = fmaf(a[i], b[jj], acc[i][jj]);
		}
		__syncthreads();
	}
	for (int i = 0; i < 4; i++)
		for (int jj = 0; jj < 4; jj++)
			y[(size_t)(row0 + ty * 4 + i) * n + col0 + tx * 4 + jj] =
				tanhf(acc[i][jj]);
}

void k_layer(const float *x, const float *w, float *y, int b, int k, int n,
	     cudaStream_t s)
{
	dim3 grid(n / TN, b / TM);

	layer_kernel<<<grid, 256, 0, s>>>(x, w, y, k, n);
	CK(cudaGetLastError());
}

/* ---- attention ---- */
#define HD 128

/* One warp per (token, head): dot(q[h], K[t][h]) / sqrt(128). */
__global__ static void attn_scores(const float *__restrict__ q,
				   const float *__restrict__ kp, int tokens,
				   int heads, float *__restrict__ scores)
{
	int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
	int lane = threadIdx.x % 32;
	int t, h;
	float s = 0;

	if (warp >= tokens * heads)
		return;
	t = warp / heads;
	h = warp % heads;
	for (int d = lane; d < HD; d += 32)
		s = fmaf(q[h * HD + d], kp[((size_t)t * heads + h) * HD + d], s);
	for (int o = 16; o; o /= 2)
		s += __shfl_xor_sync(0xffffffffu, s, o);
	if (!lane)
		scores[(size_t)h * tokens + t] = s * 0.08838834764831845f;
}

/* One block per head, one thread per dim; state is m, l, acc[128]. */
__global__ static void attn_merge(const float *__restrict__ vp,
				  const float *__restrict__ scores, int tokens,
				  int heads, float *__restrict__ state)
{
	__shared__ float red[HD];
	int h = blockIdx.x, d = threadIdx.x;
	const float *sc = scores + (size_t)h * tokens;
	float *st = state + (size_t)h * (HD + 2);
	float m = -INFINITY, l = 0, acc = 0, m_old, m_new, scale;

	for (int t = d; t < tokens; t += HD)
		m = fmaxf(m, sc[t]);
	red[d] = m;
	__syncthreads();
	for (int o = HD / 2; o; o /= 2) {
		if (d < o)
			red[d] = fmaxf(red[d], red[d + o]);
		__syncthreads();
	}
	m_old = st[0];
	m_new = fmaxf(m_old, red[0]);
	__syncthreads();
	for (int t = d; t < tokens; t += HD)
		l += __expf(sc[t] - m_new);
	red[d] = l;
	__syncthreads();
	for (int o = HD / 2; o; o /= 2) {
		if (d < o)
			red[d] += red[d + o];
		__syncthreads();
	}
	for (int t = 0; t < tokens; t++)
		acc = fmaf(__expf(sc[t] - m_new),
			   vp[((size_t)t * heads + h) * HD + d], acc);
	scale = m_old == -INFINITY ? 0.0f : __expf(m_old - m_new);
	st[2 + d] = st[2 + d] * scale + acc;
	__syncthreads();
	if (!d) {
		st[1] = st[1] * scale + red[0];
		st[0] = m_new;
	}
}

__global__ static void attn_init_kernel(float *state, int heads)
{
	int h = blockIdx.x, d = threadIdx.x;
	float *st = state + (size_t)h * (HD + 2);

	st[2 + d] = 0;
	if (!d) {
		st[0] = -INFINITY;
		st[1] = 0;
	}
}

__global__ static void attn_final_kernel(const float *state, float *out)
{
	int h = blockIdx.x, d = threadIdx.x;
	const float *st = state + (size_t)h * (HD + 2);

	out[h * HD + d] = st[2 + d] / st[1];
}

void k_attn_page(const float *q, const float *page, int tokens, int heads,
		 float *scratch, float *state, cudaStream_t s)
{
	const float *kp = page, *vp = page + (size_t)tokens * heads * HD;
	int warps = tokens * heads;

	attn_scores<<<(warps * 32 + 255) / 256, 256, 0, s>>>(q, kp, tokens,
							     heads, scratch);
	attn_merge<<<heads, HD, 0, s>>>(vp, scratch, tokens, heads, state);
	CK(cudaGetLastError());
}

void k_attn_init(float *state, int heads, cudaStream_t s)
{
	attn_init_kernel<<<heads, HD, 0, s>>>(state, heads);
	CK(cudaGetLastError());
}

void k_attn_final(const float *state, float *out, int heads, cudaStream_t s)
{
	attn_final_kernel<<<heads, HD, 0, s>>>(state, out);
	CK(cudaGetLastError());
}

/* ---- Adam ---- */
__global__ static void adam_kernel(float *__restrict__ p,
				   const float *__restrict__ g,
				   float *__restrict__ mv, long n, float bc1,
				   float bc2)
{
	const float b1 = 0.9f, b2 = 0.999f, lr = 1e-3f, eps = 1e-8f;
	float *m = mv, *v = mv + n;

	for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;
	     i += (long)gridDim.x * blockDim.x) {
		float gi = g[i];
		float mi = b1 * m[i] + (1 - b1) * gi;
		float vi = b2 * v[i] + (1 - b2) * gi * gi;

		m[i] = mi;
		v[i] = vi;
		p[i] -= lr * (mi / bc1) / (sqrtf(vi / bc2) + eps);
	}
}

void k_adam(float *p, const float *g, float *mv, long n, int step,
	    cudaStream_t s)
{
	float bc1 = 1.0f - powf(0.9f, (float)step);
	float bc2 = 1.0f - powf(0.999f, (float)step);

	adam_kernel<<<1024, 256, 0, s>>>(p, g, mv, n, bc1, bc2);
	CK(cudaGetLastError());
}

double max_abs_diff(const float *a, const float *b, size_t n)
{
	double m = 0;

	for (size_t i = 0; i < n; i++) {
		double d = fabs((double)a[i] - (double)b[i]);

		if (d > m || d != d)
			m = d != d ? INFINITY : d;
	}
	return m;
}
