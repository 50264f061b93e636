/* One dense layer of the model's forward pass, y = b + x W, for ai/_model.pyx.
 *
 * W is (n_in, n_out) row-major. The nonzero inputs are listed first (scanned 8 at a time:
 * 32 bytes read as four 64-bit words, all zero bits: skipped; a -0.0 counts as nonzero
 * and adds nothing), then each block of 64 outputs is summed over their rows in eight
 * 8-float registers (GCC vector extensions), so a row costs 8 loads and 8 multiply-adds
 * and y is written once. target_clones builds an AVX2 version next to the baseline one
 * and picks it at load time on CPUs that have it. The sum over the nonzero inputs runs in
 * increasing input order, for every output, in float arithmetic. n_in <=
 * GALLERIST_DENSE_MAX_IN, which _model.pyx asserts is at least the widest layer
 * (MODEL_MAX_WIDTH, ai/search/_model.pxd) and the observation size. */
#ifndef GALLERIST_DENSE_H
#define GALLERIST_DENSE_H

#include <stdint.h>
#include <string.h>

typedef float gallerist_v8 __attribute__((vector_size(32)));

#define GV8_LOAD(dst, p) memcpy(&(dst), (p), sizeof(gallerist_v8))
#define GV8_STORE(p, src) memcpy((p), &(src), sizeof(gallerist_v8))
#define GALLERIST_DENSE_MAX_IN 4096

__attribute__((target_clones("avx2", "default")))
static void gallerist_dense(const float* x, int n_in, const float* w, const float* b,
                            int n_out, float* y) {
    int idx[GALLERIST_DENSE_MAX_IN];
    float val[GALLERIST_DENSE_MAX_IN];
    int nnz = 0, i, k, j = 0, u, blocks = n_in / 8;
    uint64_t q[4];
    for (k = 0; k < blocks; k++) {
        memcpy(q, x + 8 * k, 32);
        if ((q[0] | q[1] | q[2] | q[3]) == 0)
            continue;
        for (i = 8 * k; i < 8 * k + 8; i++)
            if (x[i] != 0) { idx[nnz] = i; val[nnz] = x[i]; nnz++; }
    }
    for (i = 8 * blocks; i < n_in; i++)
        if (x[i] != 0) { idx[nnz] = i; val[nnz] = x[i]; nnz++; }
    for (; j + 64 <= n_out; j += 64) {
        gallerist_v8 a[8], r;
        for (u = 0; u < 8; u++)
            GV8_LOAD(a[u], b + j + 8 * u);
        for (k = 0; k < nnz; k++) {
            const float* row = w + (size_t)idx[k] * n_out + j;
            gallerist_v8 v = {val[k], val[k], val[k], val[k], val[k], val[k], val[k], val[k]};
            for (u = 0; u < 8; u++) {
                GV8_LOAD(r, row + 8 * u);
                a[u] += v * r;
            }
        }
        for (u = 0; u < 8; u++)
            GV8_STORE(y + j + 8 * u, a[u]);
    }
    for (; j + 8 <= n_out; j += 8) {
        gallerist_v8 a, r;
        GV8_LOAD(a, b + j);
        for (k = 0; k < nnz; k++) {
            gallerist_v8 v = {val[k], val[k], val[k], val[k], val[k], val[k], val[k], val[k]};
            GV8_LOAD(r, w + (size_t)idx[k] * n_out + j);
            a += v * r;
        }
        GV8_STORE(y + j, a);
    }
    for (; j < n_out; j++) {
        float a = b[j];
        for (k = 0; k < nnz; k++)
            a += val[k] * w[(size_t)idx[k] * n_out + j];
        y[j] = a;
    }
}

#endif
