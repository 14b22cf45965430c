#include "kernels.h"

#include <math.h>
#include <stdlib.h>

/* -- row sums of masked values ------------------------------------------------------------------------
 * np.where(mask, values, 0.0).sum(axis=1) without the array between: each row's kept values (0.0 where the
 * mask is off) summed as numpy sums a contiguous row of doubles, 0.0 plus its pairwise sum (eight
 * interleaved partial sums over blocks of at most 128, halves of longer rows summed apart). The Python side
 * probes once that this numpy sums so, and else never calls it. */

#define PAIRWISE_BLOCK 128

/* numpy's sum of a[0..n) where a[m..n) are zeros (m <= n), reading a[0..m) only: the same value but, maybe, the
 * sign of a zero (m = n: the whole row's sum, bit for bit). */
static double pairwise_sum_prefix(const double *a, Py_ssize_t n, Py_ssize_t m) {
    if (m > n) m = n;
    if (m <= 0) return 0.0;
    if (n < 8) {
        double sum = 0.0;
        for (Py_ssize_t i = 0; i < m; i++) sum += a[i];
        return sum;
    }
    if (n <= PAIRWISE_BLOCK) {
        double r[8];
        Py_ssize_t i, strides = n - (n % 8);
        for (int j = 0; j < 8; j++) r[j] = j < m ? a[j] : 0.0;
        for (i = 8; i + 8 <= m && i < strides; i += 8)
            for (int j = 0; j < 8; j++) r[j] += a[i + j];
        if (i < m && i < strides)  /* the stride m ends in */
            for (int j = 0; i + j < m; j++) r[j] += a[i + j];
        double sum = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (i = strides; i < m; i++) sum += a[i];
        return sum;
    }
    Py_ssize_t half = n / 2;
    half -= half % 8;
    if (m <= half) return pairwise_sum_prefix(a, half, m);
    return pairwise_sum_prefix(a, half, half) + pairwise_sum_prefix(a + half, n - half, m - half);
}

static double pairwise_sum(const double *a, Py_ssize_t n) {
    return pairwise_sum_prefix(a, n, n);
}

/* A scratch row of n doubles (room for one at least), or NULL with MemoryError set. */
static double *scratch_row(Py_ssize_t n) {
    double *row = malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
    if (!row) PyErr_NoMemory();
    return row;
}

KERNEL_DOC(masked_row_sums_doc,
"masked_row_sums(values, values_width, mask, mask_width, columns, out)\n\n"
"out[r] = np.where(mask[r, :columns], values[r, :columns], 0.0).sum() for every row r: values float64\n"
"(rows, values_width) and mask bool (rows, mask_width), both in C order, out float64 (rows,). Returns True.\n"
"(A row holding NaNs of both signs may sum to a NaN of the other sign than numpy's.)");

PyObject *masked_row_sums(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer values, mask, out;
    Py_ssize_t values_width, mask_width, columns;
    if (!PyArg_ParseTuple(args, "y*ny*nnw*:masked_row_sums", &values, &values_width, &mask, &mask_width, &columns,
                          &out))
        return NULL;
    PyObject *result = NULL;
    double *row = NULL;
    Py_ssize_t rows = out.len / (Py_ssize_t)sizeof(double);
    if (columns < 0 || columns > values_width || columns > mask_width || !holds(values.len, rows, values_width, 8) ||
        !holds(mask.len, rows, mask_width, 1)) {
        PyErr_SetString(PyExc_ValueError, "masked_row_sums: arrays of the wrong shapes");
        goto release;
    }
    if (!(row = scratch_row(columns))) goto release;
    const double *value = values.buf;
    const unsigned char *keep = mask.buf;
    double *sums = out.buf;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t r = 0; r < rows; r++) {
        const double *v = value + r * values_width;
        const unsigned char *k = keep + r * mask_width;
        for (Py_ssize_t c = 0; c < columns; c++) row[c] = k[c] ? v[c] : 0.0;
        sums[r] = 0.0 + pairwise_sum(row, columns);
    }
    Py_END_ALLOW_THREADS
    result = Py_True;
    Py_INCREF(result);
release:
    free(row);
    PyBuffer_Release(&values);
    PyBuffer_Release(&mask);
    PyBuffer_Release(&out);
    return result;
}

KERNEL_DOC(cut_row_sums_doc,
"cut_row_sums(values, within, position, rows, width, bounds, columns, out)\n\n"
"A gain list's row sums at several cutoffs in one pass: for each cutoff j, out[j, r] = masked_row_sums of\n"
"values[r] under the mask within[r] & (position[r] <= bounds[j]) (within[r] alone where bounds[j] is -1)\n"
"over its first columns[j] columns, summed as masked_row_sums sums. values float64, within bool, position\n"
"int64, all (rows, width) in C order; bounds and columns int64 (K,), each column count at most width; out\n"
"float64 (K, rows). Returns True.");

PyObject *cut_row_sums(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer values, within, position, bounds, columns, out;
    Py_ssize_t rows, width;
    if (!PyArg_ParseTuple(args, "y*y*y*nny*y*w*:cut_row_sums", &values, &within, &position, &rows, &width, &bounds,
                          &columns, &out))
        return NULL;
    PyObject *result = NULL;
    double *row = NULL;
    Py_ssize_t cutoffs = bounds.len / (Py_ssize_t)sizeof(int64_t);
    const int64_t *bound = bounds.buf, *column = columns.buf;
    int fits = holds(values.len, rows, width, 8) && holds(within.len, rows, width, 1) &&
               holds(position.len, rows, width, 8) && holds(bounds.len, cutoffs, 1, 8) &&
               columns.len == bounds.len && holds(out.len, cutoffs, rows, 8);
    for (Py_ssize_t j = 0; fits && j < cutoffs; j++) fits = column[j] >= 0 && column[j] <= width;
    if (!fits) {
        PyErr_SetString(PyExc_ValueError, "cut_row_sums: arrays of the wrong shapes");
        goto release;
    }
    if (!(row = scratch_row(width))) goto release;
    double *sums = out.buf;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t r = 0; r < rows; r++) {
        const double *v = (const double *)values.buf + r * width;
        const unsigned char *w = (const unsigned char *)within.buf + r * width;
        const int64_t *at = (const int64_t *)position.buf + r * width;
        for (Py_ssize_t j = 0; j < cutoffs; j++) {
            /* (without a bound only the mask is read: the whole row's positions are left alone) */
            if (bound[j] < 0)
                for (Py_ssize_t c = 0; c < column[j]; c++) row[c] = w[c] ? v[c] : 0.0;
            else
                for (Py_ssize_t c = 0; c < column[j]; c++) row[c] = (w[c] && at[c] <= bound[j]) ? v[c] : 0.0;
            sums[j * rows + r] = 0.0 + pairwise_sum(row, column[j]);
        }
    }
    Py_END_ALLOW_THREADS
    result = Py_True;
    Py_INCREF(result);
release:
    free(row);
    PyBuffer_Release(&values);
    PyBuffer_Release(&within);
    PyBuffer_Release(&position);
    PyBuffer_Release(&bounds);
    PyBuffer_Release(&columns);
    PyBuffer_Release(&out);
    return result;
}

/* P+'s parts of one row over its first `columns` entries (see p_plus_parts); row: scratch of `columns`. */
static void p_plus_row(const double *g, const unsigned char *w, const double *b, Py_ssize_t columns, double *row,
                       double *total, int64_t *count, unsigned char *any) {
    double top = -INFINITY;
    Py_ssize_t preferred = -1, kept = 0;
    for (Py_ssize_t c = 0; c < columns; c++)
        if (w[c] && g[c] > top) {
            top = g[c];
            preferred = c;
        }
    for (Py_ssize_t c = 0; c < columns; c++) {
        int up = w[c] && c <= preferred;
        row[c] = up ? b[c] : 0.0;
        kept += up;
    }
    *total = 0.0 + pairwise_sum(row, columns);
    *count = kept;
    *any = preferred >= 0;
}

KERNEL_DOC(p_plus_parts_doc,
"p_plus_parts(gains, within, ratio, width, columns, total, count, any)\n\n"
"P+'s parts over the first `columns` columns of (rows, width) arrays in C order (gains and ratio float64,\n"
"within bool): the first column holding a row's largest gain among its `within` entries (its preferred\n"
"rank), then total[r] = np.where(upto, ratio, 0.0).sum() and count[r] (int64) the entries `within` up to\n"
"that column, any[r] (bool) whether the row has an entry `within`; the sum as masked_row_sums sums.\n"
"Returns True.");

PyObject *p_plus_parts(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer gains, within, ratio, total, count, any;
    Py_ssize_t width, columns;
    if (!PyArg_ParseTuple(args, "y*y*y*nnw*w*w*:p_plus_parts", &gains, &within, &ratio, &width, &columns, &total,
                          &count, &any))
        return NULL;
    PyObject *result = NULL;
    double *row = NULL;
    Py_ssize_t rows = total.len / (Py_ssize_t)sizeof(double);
    if (columns < 0 || columns > width || !holds(gains.len, rows, width, 8) || !holds(ratio.len, rows, width, 8) ||
        !holds(within.len, rows, width, 1) || count.len != rows * 8 || any.len != rows) {
        PyErr_SetString(PyExc_ValueError, "p_plus_parts: arrays of the wrong shapes");
        goto release;
    }
    if (!(row = scratch_row(columns))) goto release;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t r = 0; r < rows; r++)
        p_plus_row((const double *)gains.buf + r * width, (const unsigned char *)within.buf + r * width,
                   (const double *)ratio.buf + r * width, columns, row, (double *)total.buf + r,
                   (int64_t *)count.buf + r, (unsigned char *)any.buf + r);
    Py_END_ALLOW_THREADS
    result = Py_True;
    Py_INCREF(result);
release:
    free(row);
    PyBuffer_Release(&gains);
    PyBuffer_Release(&within);
    PyBuffer_Release(&ratio);
    PyBuffer_Release(&total);
    PyBuffer_Release(&count);
    PyBuffer_Release(&any);
    return result;
}

KERNEL_DOC(cut_p_plus_parts_doc,
"cut_p_plus_parts(gains, within, position, ratio, rows, width, bounds, columns, total, count, any)\n\n"
"P+'s parts (p_plus_parts) at several cutoffs in one pass: for each cutoff j, those of the row's first\n"
"columns[j] entries under within[r] & (position[r] <= bounds[j]) (within[r] alone where bounds[j] is -1).\n"
"gains and ratio float64, within bool, position int64, all (rows, width) in C order; bounds and columns int64\n"
"(K,), each column count at most width; total float64, count int64 and any bool, each (K, rows). Returns\n"
"True.");

PyObject *cut_p_plus_parts(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer gains, within, position, ratio, bounds, columns, total, count, any;
    Py_ssize_t rows, width;
    if (!PyArg_ParseTuple(args, "y*y*y*y*nny*y*w*w*w*:cut_p_plus_parts", &gains, &within, &position, &ratio, &rows,
                          &width, &bounds, &columns, &total, &count, &any))
        return NULL;
    PyObject *result = NULL;
    double *row = NULL;
    unsigned char *kept = NULL;
    Py_ssize_t cutoffs = bounds.len / (Py_ssize_t)sizeof(int64_t);
    const int64_t *bound = bounds.buf, *column = columns.buf;
    int fits = holds(gains.len, rows, width, 8) && holds(within.len, rows, width, 1) &&
               holds(position.len, rows, width, 8) && holds(ratio.len, rows, width, 8) &&
               holds(bounds.len, cutoffs, 1, 8) && columns.len == bounds.len && holds(total.len, cutoffs, rows, 8) &&
               holds(count.len, cutoffs, rows, 8) && holds(any.len, cutoffs, rows, 1);
    for (Py_ssize_t j = 0; fits && j < cutoffs; j++) fits = column[j] >= 0 && column[j] <= width;
    if (!fits) {
        PyErr_SetString(PyExc_ValueError, "cut_p_plus_parts: arrays of the wrong shapes");
        goto release;
    }
    if (!(row = scratch_row(width))) goto release;
    if (!(kept = malloc((size_t)(width > 0 ? width : 1)))) {
        PyErr_NoMemory();
        goto release;
    }
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t r = 0; r < rows; r++) {
        const double *g = (const double *)gains.buf + r * width;
        const unsigned char *w = (const unsigned char *)within.buf + r * width;
        const int64_t *at = (const int64_t *)position.buf + r * width;
        for (Py_ssize_t j = 0; j < cutoffs; j++) {
            const unsigned char *mask = w;
            if (bound[j] >= 0) {
                for (Py_ssize_t c = 0; c < column[j]; c++) kept[c] = w[c] && at[c] <= bound[j];
                mask = kept;
            }
            p_plus_row(g, mask, (const double *)ratio.buf + r * width, column[j], row,
                       (double *)total.buf + j * rows + r, (int64_t *)count.buf + j * rows + r,
                       (unsigned char *)any.buf + j * rows + r);
        }
    }
    Py_END_ALLOW_THREADS
    result = Py_True;
    Py_INCREF(result);
release:
    free(row);
    free(kept);
    PyBuffer_Release(&gains);
    PyBuffer_Release(&within);
    PyBuffer_Release(&position);
    PyBuffer_Release(&ratio);
    PyBuffer_Release(&bounds);
    PyBuffer_Release(&columns);
    PyBuffer_Release(&total);
    PyBuffer_Release(&count);
    PyBuffer_Release(&any);
    return result;
}

KERNEL_DOC(blended_ratio_doc,
"blended_ratio(gains, position, ideal, rows, width, ideal_width, beta, out)\n\n"
"BR(r) = (C(r) + beta cg(r)) / (r + beta cg*(min(r, L))) at every entry of (rows, width) arrays in C order\n"
"(gains float64, position int64, out float64; ideal float64 (rows, L = ideal_width)): C and cg the running\n"
"count and sum of the row's gains (> 0), cg* the running sum of its ideal gains (0 where L is 0), each\n"
"summed in order as np.cumsum sums, and every operation numpy's (built without fused multiply-adds).\n"
"Returns True, or None (declines) for a position numpy would not index by.");

PyObject *blended_ratio(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer gains, position, ideal, out;
    Py_ssize_t rows, width, ideal_width;
    double beta;
    if (!PyArg_ParseTuple(args, "y*y*y*nnndw*:blended_ratio", &gains, &position, &ideal, &rows, &width, &ideal_width,
                          &beta, &out))
        return NULL;
    PyObject *result = NULL;
    double *ideal_sums = NULL;
    if (!holds(gains.len, rows, width, 8) || !holds(position.len, rows, width, 8) || !holds(out.len, rows, width, 8) ||
        !holds(ideal.len, rows, ideal_width, 8)) {
        PyErr_SetString(PyExc_ValueError, "blended_ratio: arrays of the wrong shapes");
        goto release;
    }
    if (!(ideal_sums = scratch_row(ideal_width))) goto release;
    int declined = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t r = 0; r < rows && !declined; r++) {
        const double *g = (const double *)gains.buf + r * width, *best = (const double *)ideal.buf + r * ideal_width;
        const int64_t *at = (const int64_t *)position.buf + r * width;
        double *br = (double *)out.buf + r * width;
        Py_ssize_t last = ideal_width ? ideal_width : 1;
        if (ideal_width) {
            ideal_sums[0] = best[0];
            for (Py_ssize_t j = 1; j < ideal_width; j++) ideal_sums[j] = ideal_sums[j - 1] + best[j];
        } else {
            ideal_sums[0] = 0.0;
        }
        int64_t count = 0;
        double cumulative = 0.0;
        for (Py_ssize_t j = 0; j < width; j++) {
            count += g[j] > 0;
            cumulative = j ? cumulative + g[j] : g[j];
            int64_t index = (at[j] < last ? at[j] : last) - 1;
            if (index < 0) index += last;  /* (no rank is below 1; numpy's index -1 would be the last) */
            if (index < 0) {
                declined = 1;  /* numpy refuses such an index: its path says so */
                break;
            }
            br[j] = ((double)count + beta * cumulative) / ((double)at[j] + beta * ideal_sums[index]);
        }
    }
    Py_END_ALLOW_THREADS
    result = declined ? Py_None : Py_True;
    Py_INCREF(result);
release:
    free(ideal_sums);
    PyBuffer_Release(&gains);
    PyBuffer_Release(&position);
    PyBuffer_Release(&ideal);
    PyBuffer_Release(&out);
    return result;
}

KERNEL_DOC(err_probability_doc,
"err_probability(gains, top_gain, rows, width, out)\n\n"
"P_ERR at every entry of (rows, width) gains in C order (float64; top_gain float64 (rows,), out float64):\n"
"s = g / (hg + 1), P_ERR(j) = s(j) times the running product of (1 - s) over the row's entries before j\n"
"(1 at the first), the product taken in order as np.cumprod takes it, every operation numpy's.");

PyObject *err_probability(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer gains, top_gain, out;
    Py_ssize_t rows, width;
    if (!PyArg_ParseTuple(args, "y*y*nnw*:err_probability", &gains, &top_gain, &rows, &width, &out)) return NULL;
    PyObject *result = NULL;
    if (!holds(gains.len, rows, width, 8) || !holds(out.len, rows, width, 8) || !holds(top_gain.len, rows, 1, 8)) {
        PyErr_SetString(PyExc_ValueError, "err_probability: arrays of the wrong shapes");
        goto release;
    }
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t r = 0; r < rows; r++) {
        const double *g = (const double *)gains.buf + r * width;
        double *p = (double *)out.buf + r * width, scale = ((const double *)top_gain.buf)[r] + 1.0, survive = 1.0;
        for (Py_ssize_t j = 0; j < width; j++) {
            double stop = g[j] / scale;
            p[j] = stop * survive;
            survive = j ? survive * (1.0 - stop) : 1.0 - stop;
        }
    }
    Py_END_ALLOW_THREADS
    result = Py_True;
    Py_INCREF(result);
release:
    PyBuffer_Release(&gains);
    PyBuffer_Release(&top_gain);
    PyBuffer_Release(&out);
    return result;
}

KERNEL_DOC(gap_terms_doc,
"gap_terms(grade, position, rows, width, probabilities, out)\n\n"
"GAP's numerator terms at every entry of (rows, width) arrays in C order (grade and position int64, out\n"
"float64; probabilities float64 (J,)): inner = 0.0, then for j = 1..J inner += (g_j [grade >= j]) n_j, n_j the\n"
"row's entries up to this one of grade >= j; the term is inner / position where grade > 0, else 0.0. Every\n"
"operation numpy's, in numpy's order. Returns True.");

PyObject *gap_terms(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer grade, position, probabilities, out;
    Py_ssize_t rows, width;
    if (!PyArg_ParseTuple(args, "y*y*nny*w*:gap_terms", &grade, &position, &rows, &width, &probabilities, &out))
        return NULL;
    PyObject *result = NULL;
    int64_t *counts = NULL;
    Py_ssize_t levels = probabilities.len / (Py_ssize_t)sizeof(double);
    if (!holds(grade.len, rows, width, 8) || !holds(position.len, rows, width, 8) || !holds(out.len, rows, width, 8) ||
        !holds(probabilities.len, levels, 1, 8)) {
        PyErr_SetString(PyExc_ValueError, "gap_terms: arrays of the wrong shapes");
        goto release;
    }
    if (!(counts = malloc((size_t)(levels > 0 ? levels : 1) * sizeof(int64_t)))) {
        PyErr_NoMemory();
        goto release;
    }
    const double *g = probabilities.buf;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t r = 0; r < rows; r++) {
        const int64_t *c = (const int64_t *)grade.buf + r * width, *at = (const int64_t *)position.buf + r * width;
        double *term = (double *)out.buf + r * width;
        for (Py_ssize_t j = 0; j < levels; j++) counts[j] = 0;
        for (Py_ssize_t k = 0; k < width; k++) {
            double inner = 0.0;
            for (Py_ssize_t j = 0; j < levels; j++) {
                int reaches = c[k] >= j + 1;
                counts[j] += reaches;
                inner = inner + (g[j] * (double)reaches) * (double)counts[j];
            }
            term[k] = c[k] > 0 ? inner / (double)at[k] : 0.0;
        }
    }
    Py_END_ALLOW_THREADS
    result = Py_True;
    Py_INCREF(result);
release:
    free(counts);
    PyBuffer_Release(&grade);
    PyBuffer_Release(&position);
    PyBuffer_Release(&probabilities);
    PyBuffer_Release(&out);
    return result;
}

KERNEL_DOC(inferred_precision_sums_doc,
"inferred_precision_sums(topic, rank, relevant, nonrelevant, lines, smoothing, out)\n\n"
"infAP's numerators: over `lines` judged lines grouped by topic (runs of equal topic, int64), each run in rank\n"
"order (rank int64 >= 1; relevant and nonrelevant bool), out[topic] (float64, zeroed by the caller) adds, in\n"
"line order, each relevant line's expected precision: 1 at rank 1, else 1/k + ((k-1)/k) (p/max(k-1, 1))\n"
"((r + eps)/(r + n + 2 eps)), with p the lines above it in its run, r and n the relevant and non-relevant ones\n"
"among them, eps `smoothing`; every operation numpy's, in numpy's order. Returns True, or None (declines) for a\n"
"topic outside out.");

PyObject *inferred_precision_sums(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer topic, rank, relevant, nonrelevant, out;
    Py_ssize_t lines;
    double smoothing;
    if (!PyArg_ParseTuple(args, "y*y*y*y*ndw*:inferred_precision_sums", &topic, &rank, &relevant, &nonrelevant,
                          &lines, &smoothing, &out))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t topics = out.len / (Py_ssize_t)sizeof(double);
    if (!holds(topic.len, lines, 1, 8) || !holds(rank.len, lines, 1, 8) || !holds(relevant.len, lines, 1, 1) ||
        !holds(nonrelevant.len, lines, 1, 1) || !holds(out.len, topics, 1, 8)) {
        PyErr_SetString(PyExc_ValueError, "inferred_precision_sums: arrays of the wrong shapes");
        goto release;
    }
    const int64_t *t = topic.buf, *k = rank.buf;
    const unsigned char *rel = relevant.buf, *non = nonrelevant.buf;
    double *total = out.buf, twice = 2 * smoothing;
    int declined = 0;
    Py_BEGIN_ALLOW_THREADS
    int64_t above = 0, r = 0, n = 0;
    for (Py_ssize_t i = 0; i < lines; i++) {
        if (i == 0 || t[i] != t[i - 1]) above = r = n = 0;  /* a topic's first line */
        if (rel[i]) {
            if (t[i] < 0 || t[i] >= topics) {
                declined = 1;
                break;
            }
            double rank_i = (double)k[i], term;
            if (rank_i == 1)
                term = 1.0;
            else {
                double lower = rank_i - 1 > 1 ? rank_i - 1 : 1;  /* np.maximum(rank - 1, 1) */
                term = 1 / rank_i + (rank_i - 1) / rank_i * ((double)above / lower) *
                       (((double)r + smoothing) / ((double)(r + n) + twice));
            }
            total[t[i]] += term;
        }
        above++;
        r += rel[i] != 0;
        n += non[i] != 0;
    }
    Py_END_ALLOW_THREADS
    result = declined ? Py_None : Py_True;
    Py_INCREF(result);
release:
    PyBuffer_Release(&topic);
    PyBuffer_Release(&rank);
    PyBuffer_Release(&relevant);
    PyBuffer_Release(&nonrelevant);
    PyBuffer_Release(&out);
    return result;
}

KERNEL_DOC(bpref_sums_doc,
"bpref_sums(topic, relevant, nonrelevant, lines, relevant_total, nonrelevant_total, out)\n\n"
"bpref's numerators: over `lines` judged lines grouped by topic (runs of equal topic, int64), each run in rank\n"
"order (relevant and nonrelevant bool), out[topic] (float64, zeroed by the caller) adds, in line order, each\n"
"relevant line's 1 - min(n, R) / max(min(N, R), 1), or 1 where n is 0: n the non-relevant lines above it in\n"
"its run, R and N the topic's relevant_total and nonrelevant_total (int64, one per entry of out); every\n"
"operation numpy's. Returns True, or None (declines) for a topic outside out.");

PyObject *bpref_sums(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer topic, relevant, nonrelevant, relevant_total, nonrelevant_total, out;
    Py_ssize_t lines;
    if (!PyArg_ParseTuple(args, "y*y*y*ny*y*w*:bpref_sums", &topic, &relevant, &nonrelevant, &lines,
                          &relevant_total, &nonrelevant_total, &out))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t topics = out.len / (Py_ssize_t)sizeof(double);
    if (!holds(topic.len, lines, 1, 8) || !holds(relevant.len, lines, 1, 1) || !holds(nonrelevant.len, lines, 1, 1) ||
        !holds(relevant_total.len, topics, 1, 8) || !holds(nonrelevant_total.len, topics, 1, 8) ||
        !holds(out.len, topics, 1, 8)) {
        PyErr_SetString(PyExc_ValueError, "bpref_sums: arrays of the wrong shapes");
        goto release;
    }
    const int64_t *t = topic.buf, *rel_total = relevant_total.buf, *non_total = nonrelevant_total.buf;
    const unsigned char *rel = relevant.buf, *non = nonrelevant.buf;
    double *total = out.buf;
    int declined = 0;
    Py_BEGIN_ALLOW_THREADS
    int64_t n = 0;
    for (Py_ssize_t i = 0; i < lines; i++) {
        if (i == 0 || t[i] != t[i - 1]) n = 0;  /* a topic's first line */
        if (rel[i]) {
            if (t[i] < 0 || t[i] >= topics) {
                declined = 1;
                break;
            }
            int64_t r_all = rel_total[t[i]], n_all = non_total[t[i]];
            int64_t counted = n < r_all ? n : r_all, judged = n_all < r_all ? n_all : r_all;
            total[t[i]] += n > 0 ? 1.0 - (double)counted / (double)(judged > 1 ? judged : 1) : 1.0;
        }
        n += non[i] != 0;
    }
    Py_END_ALLOW_THREADS
    result = declined ? Py_None : Py_True;
    Py_INCREF(result);
release:
    PyBuffer_Release(&topic);
    PyBuffer_Release(&relevant);
    PyBuffer_Release(&nonrelevant);
    PyBuffer_Release(&relevant_total);
    PyBuffer_Release(&nonrelevant_total);
    PyBuffer_Release(&out);
    return result;
}

/* -- every NCU kernel's sums of one gain list at its cutoffs, in one pass --------------------------------
 * The terms each kernel of the family sums (divaleval/measures/ncu/kernels.py), computed entry by entry as
 * numpy computes them (the running count, cumulative gain, BR and P_ERR as blended_ratio and err_probability
 * compute them), then summed under each cutoff's mask as cut_row_sums sums: the row is read once for all of
 * them rather than once per term array and again per sum. A row's entries past its last one within are
 * masked out (zeros) in every sum, so they are neither computed nor read: adding a zero changes no other
 * value, only, maybe, the sign of a zero sum, which the 0.0 every sum starts from settles. */

enum { TERM_PRECISION, TERM_DISCOUNTED, TERM_RATIO, TERM_ERR, TERM_EBR, TERM_RBP, TERM_IRBU, TERM_ONE, TERM_KINDS };

static inline double at_rank(const double *table, Py_ssize_t length, int64_t rank) {
    return table[rank < 0 ? 0 : rank >= length ? length - 1 : rank];  /* np.take(..., mode="clip") */
}

KERNEL_DOC(gain_list_sums_doc,
"gain_list_sums(gains, position, ideal, top_gain, rows, width, ideal_width, deepest, discount, rbp_powers,\n"
"               irbu_powers, beta, bounds, columns, sums, first, total, count, any)\n\n"
"A gain list's sums at K cutoffs of every NCU kernel's terms, in one pass: gains float64 and position int64\n"
"(rows, width), ideal float64 (rows, ideal_width), top_gain float64 (rows,), all in C order. At each entry,\n"
"with C, cg, BR and P_ERR as blended_ratio and err_probability compute them, the terms (in this order) C/r,\n"
"g discount[r], BR, P_ERR/r, P_ERR BR, g rbp_powers[r], P_ERR irbu_powers[r] and 1 (the tables float64,\n"
"indexed by rank, clipped to their length as np.take clips); sums float64 (8, K, rows): for each term and\n"
"cutoff j, cut_row_sums of the terms under within = (position <= deepest) & (gains > 0), bounds and columns\n"
"int64 (K,) as cut_row_sums takes them; first int64 (rows,) each row's first rank with a gain (deepest + 1\n"
"where none); total, count and any (K, rows) P+'s parts over BR at every cutoff, as cut_p_plus_parts gives\n"
"them. Returns True, or None (declines) for a position below 1.");

PyObject *gain_list_sums(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer gains, position, ideal, top_gain, discount, rbp_powers, irbu_powers, bounds, columns, out, first,
        total, count, any;
    Py_ssize_t rows, width, ideal_width;
    long long deepest;
    double beta;
    if (!PyArg_ParseTuple(args, "y*y*y*y*nnnLy*y*y*dy*y*w*w*w*w*w*:gain_list_sums", &gains, &position, &ideal,
                          &top_gain, &rows, &width, &ideal_width, &deepest, &discount, &rbp_powers, &irbu_powers,
                          &beta, &bounds, &columns, &out, &first, &total, &count, &any))
        return NULL;
    PyObject *result = NULL;
    double *scratch = NULL;
    unsigned char *kept = NULL;
    Py_ssize_t cutoffs = bounds.len / (Py_ssize_t)sizeof(int64_t);
    Py_ssize_t discount_length = discount.len / 8, rbp_length = rbp_powers.len / 8, irbu_length = irbu_powers.len / 8;
    const int64_t *bound = bounds.buf, *column = columns.buf;
    int fits = holds(gains.len, rows, width, 8) && holds(position.len, rows, width, 8) &&
               holds(ideal.len, rows, ideal_width, 8) && holds(top_gain.len, rows, 1, 8) &&
               holds(bounds.len, cutoffs, 1, 8) && columns.len == bounds.len &&
               holds(out.len, TERM_KINDS * cutoffs, rows, 8) && holds(first.len, rows, 1, 8) &&
               holds(total.len, cutoffs, rows, 8) && holds(count.len, cutoffs, rows, 8) &&
               holds(any.len, cutoffs, rows, 1) && discount_length > 0 && rbp_length > 0 && irbu_length > 0 &&
               deepest < INT64_MAX;
    for (Py_ssize_t j = 0; fits && j < cutoffs; j++) fits = column[j] >= 0 && column[j] <= width;
    if (!fits) {
        PyErr_SetString(PyExc_ValueError, "gain_list_sums: arrays of the wrong shapes");
        goto release;
    }
    /* scratch: the terms within (0.0 elsewhere; TERM_ONE's row unused), a row under a cutoff's bound, the ideal's
     * running sums */
    Py_ssize_t ideal_room = ideal_width ? ideal_width : 1;
    if (!(scratch = scratch_row((TERM_KINDS + 1) * width + ideal_room))) goto release;
    if (!(kept = malloc((size_t)(2 * width > 0 ? 2 * width : 1)))) {
        PyErr_NoMemory();
        goto release;
    }
    const double *rank_discount = discount.buf, *rbp = rbp_powers.buf, *irbu = irbu_powers.buf;
    double *sums = out.buf, *row = scratch + TERM_KINDS * width, *ideal_sums = row + width;
    double *term[TERM_KINDS];
    for (int kind = 0; kind < TERM_KINDS; kind++) term[kind] = scratch + kind * width;
    unsigned char *within = kept + width;
    int declined = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t r = 0; r < rows && !declined; r++) {
        const double *g = (const double *)gains.buf + r * width, *best = (const double *)ideal.buf + r * ideal_width;
        const int64_t *at = (const int64_t *)position.buf + r * width;
        /* which entries are within, the row's last one within (its end: one past it), its first rank with a gain,
         * and whether its ranks ascend (then the entries within a bound are those before the first past it) */
        Py_ssize_t end = 0;
        int64_t earliest = deepest + 1;
        int ascending = 1;
        for (Py_ssize_t c = 0; c < width; c++) {
            within[c] = at[c] <= deepest && g[c] > 0;
            if (within[c]) end = c + 1;
            if (g[c] > 0 && at[c] < earliest) earliest = at[c];
            if (c && at[c] < at[c - 1]) ascending = 0;
        }
        ((int64_t *)first.buf)[r] = earliest;
        Py_ssize_t last = ideal_width ? ideal_width : 1;
        if (ideal_width) {
            ideal_sums[0] = best[0];
            for (Py_ssize_t j = 1; j < ideal_width; j++) ideal_sums[j] = ideal_sums[j - 1] + best[j];
        } else {
            ideal_sums[0] = 0.0;
        }
        double scale = ((const double *)top_gain.buf)[r] + 1.0, survive = 1.0, cumulative = 0.0;
        int64_t running = 0;
        for (Py_ssize_t c = 0; c < end; c++) {
            double gain = g[c];
            int64_t rank = at[c];
            running += gain > 0;
            cumulative = c ? cumulative + gain : gain;
            double stop = gain / scale, stopping = stop * survive;
            survive = c ? survive * (1.0 - stop) : 1.0 - stop;
            if (!within[c]) {
                for (int kind = 0; kind < TERM_ONE; kind++) term[kind][c] = 0.0;
                continue;
            }
            int64_t index = (rank < last ? rank : last) - 1;
            if (index < 0) index += last;  /* (as blended_ratio: numpy's index -1 is the last) */
            if (index < 0) {
                declined = 1;
                break;
            }
            double ratio = ((double)running + beta * cumulative) / ((double)rank + beta * ideal_sums[index]);
            term[TERM_PRECISION][c] = (double)running / (double)rank;
            term[TERM_DISCOUNTED][c] = gain * at_rank(rank_discount, discount_length, rank);
            term[TERM_RATIO][c] = ratio;
            term[TERM_ERR][c] = stopping / (double)rank;
            term[TERM_EBR][c] = stopping * ratio;
            term[TERM_RBP][c] = gain * at_rank(rbp, rbp_length, rank);
            term[TERM_IRBU][c] = stopping * at_rank(irbu, irbu_length, rank);
        }
        if (declined) break;
        for (Py_ssize_t j = 0; j < cutoffs; j++) {
            Py_ssize_t n = column[j], upto = end < n ? end : n, entries = 0;
            const unsigned char *mask = within;
            if (bound[j] >= 0 && ascending) {  /* the terms within, up to the first entry past the bound */
                Py_ssize_t below = 0;
                while (below < upto && at[below] <= bound[j]) below++;
                upto = below;
            } else if (bound[j] >= 0) {
                for (Py_ssize_t c = 0; c < upto; c++) kept[c] = within[c] && at[c] <= bound[j];
                mask = kept;
            }
            for (Py_ssize_t c = 0; c < upto; c++) entries += mask[c];
            for (int kind = 0; kind < TERM_ONE; kind++) {
                const double *summed = term[kind];
                if (mask != within) {
                    for (Py_ssize_t c = 0; c < upto; c++) row[c] = mask[c] ? summed[c] : 0.0;
                    summed = row;
                }
                sums[(kind * cutoffs + j) * rows + r] = 0.0 + pairwise_sum_prefix(summed, n, upto);
            }
            sums[(TERM_ONE * cutoffs + j) * rows + r] = (double)entries;  /* ones and zeros: exact in any order */
            /* P+: the first entry of the largest gain within, then BR summed over the entries within up to it */
            double top = -INFINITY;
            Py_ssize_t preferred = -1, counted = 0;
            for (Py_ssize_t c = 0; c < upto; c++)
                if (mask[c] && g[c] > top) {
                    top = g[c];
                    preferred = c;
                }
            const double *ratios = term[TERM_RATIO];
            for (Py_ssize_t c = 0; c <= preferred; c++) counted += mask[c];
            if (mask != within) {
                for (Py_ssize_t c = 0; c <= preferred; c++) row[c] = mask[c] ? ratios[c] : 0.0;
                ratios = row;
            }
            ((double *)total.buf)[j * rows + r] = 0.0 + pairwise_sum_prefix(ratios, n, preferred + 1);
            ((int64_t *)count.buf)[j * rows + r] = counted;
            ((unsigned char *)any.buf)[j * rows + r] = preferred >= 0;
        }
    }
    Py_END_ALLOW_THREADS
    result = declined ? Py_None : Py_True;
    Py_INCREF(result);
release:
    free(scratch);
    free(kept);
    PyBuffer_Release(&gains);
    PyBuffer_Release(&position);
    PyBuffer_Release(&ideal);
    PyBuffer_Release(&top_gain);
    PyBuffer_Release(&discount);
    PyBuffer_Release(&rbp_powers);
    PyBuffer_Release(&irbu_powers);
    PyBuffer_Release(&bounds);
    PyBuffer_Release(&columns);
    PyBuffer_Release(&out);
    PyBuffer_Release(&first);
    PyBuffer_Release(&total);
    PyBuffer_Release(&count);
    PyBuffer_Release(&any);
    return result;
}
