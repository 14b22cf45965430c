/* The (hit, intent) pairs of a ranking's hits (twin: divaleval/native/hits.py; used by divaleval/context.py's Hits).
 *
 * A hit is a ranked document relevant to some intent; its judged row's relevant intents are
 * intents[pointer[row]:pointer[row + 1]] (ascending), at levels[...] (the qrels' relevant_pairs). Expanding
 * them is a few gathers over every pair of a run, done here in two passes without the GIL (so that the reader
 * threads go on meanwhile): the counts and where each hit's pairs start, then the pairs themselves. Integer
 * work only, so the twin's values exactly; a row out of range makes the kernel decline (None).
 */
#include "kernels.h"

KERNEL_DOC(hit_pair_counts_doc,
"hit_pair_counts(pointer, row, count, first) -> total pairs, or None\n\n"
"count[h] = pointer[row[h] + 1] - pointer[row[h]] and first[h] = count[0] + ... + count[h - 1]: pointer int64\n"
"(rows + 1), row, count and first int64 (hits). None (nothing written that matters) for a row out of range.");

PyObject *hit_pair_counts(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer pointer, row, count, first;
    if (!PyArg_ParseTuple(args, "y*y*w*w*:hit_pair_counts", &pointer, &row, &count, &first)) return NULL;
    PyObject *result = NULL;
    Py_ssize_t rows = pointer.len / 8 - 1, hits = row.len / 8;
    if (pointer.len % 8 || rows < 0 || row.len % 8 || count.len != row.len || first.len != row.len) {
        PyErr_SetString(PyExc_ValueError, "hit_pair_counts: arrays of the wrong sizes");
        goto release;
    }
    const int64_t *start = pointer.buf, *hit_row = row.buf;
    int64_t *pairs = count.buf, *begin = first.buf, total = 0;
    int bad = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t h = 0; h < hits; h++) {
        int64_t r = hit_row[h];
        if (r < 0 || r >= rows) { bad = 1; break; }
        begin[h] = total;
        pairs[h] = start[r + 1] - start[r];
        total += pairs[h];
    }
    Py_END_ALLOW_THREADS
    if (bad) {
        result = Py_None;
        Py_INCREF(result);
    } else {
        result = PyLong_FromLongLong(total);
    }
release:
    PyBuffer_Release(&pointer);
    PyBuffer_Release(&row);
    PyBuffer_Release(&count);
    PyBuffer_Release(&first);
    return result;
}

KERNEL_DOC(hit_pairs_doc,
"hit_pairs(pointer, intents, levels, row, slot, count, first, columns, pair_hit, pair_intent, pair_level, pair_key)\n\n"
"For every hit h and k < count[h], pair p = first[h] + k: pair_hit[p] = h, pair_intent[p] = intents[i] and\n"
"pair_level[p] = levels[i] with i = pointer[row[h]] + k, pair_key[p] = slot[h] * columns + pair_intent[p].\n"
"int64 arrays but levels and pair_level (int16); count and first as hit_pair_counts made them. Returns True,\n"
"or None (outputs not filled) where a pair lies outside intents.");

PyObject *hit_pairs(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer pointer, intents, levels, row, slot, count, first, out_hit, out_intent, out_level, out_key;
    Py_ssize_t columns;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*y*nw*w*w*w*:hit_pairs", &pointer, &intents, &levels, &row, &slot,
                          &count, &first, &columns, &out_hit, &out_intent, &out_level, &out_key))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t hits = row.len / 8, pairs = out_hit.len / 8, known = intents.len / 8;
    if (row.len % 8 || slot.len != row.len || count.len != row.len || first.len != row.len ||
        out_intent.len != out_hit.len || out_key.len != out_hit.len || out_level.len != pairs * 2 ||
        levels.len != known * 2 || intents.len % 8 || pointer.len % 8) {
        PyErr_SetString(PyExc_ValueError, "hit_pairs: arrays of the wrong sizes");
        goto release;
    }
    const int64_t *start = pointer.buf, *intent = intents.buf, *hit_row = row.buf, *hit_slot = slot.buf;
    const int64_t *pair_count = count.buf, *pair_first = first.buf;
    const int16_t *level = levels.buf;
    int64_t *to_hit = out_hit.buf, *to_intent = out_intent.buf, *to_key = out_key.buf;
    int16_t *to_level = out_level.buf;
    int bad = 0;
    Py_BEGIN_ALLOW_THREADS
    Py_ssize_t rows = pointer.len / 8 - 1;
    for (Py_ssize_t h = 0; h < hits && !bad; h++) {
        if (hit_row[h] < 0 || hit_row[h] >= rows) { bad = 1; break; }
        int64_t from = start[hit_row[h]], p = pair_first[h], n = pair_count[h];
        if (from < 0 || n < 0 || from + n > known || p < 0 || p + n > pairs) { bad = 1; break; }
        int64_t key = hit_slot[h] * (int64_t)columns;
        for (int64_t k = 0; k < n; k++) {
            to_hit[p + k] = h;
            to_intent[p + k] = intent[from + k];
            to_level[p + k] = level[from + k];
            to_key[p + k] = key + intent[from + k];
        }
    }
    Py_END_ALLOW_THREADS
    result = bad ? Py_None : Py_True;
    Py_INCREF(result);
release:
    PyBuffer_Release(&pointer);
    PyBuffer_Release(&intents);
    PyBuffer_Release(&levels);
    PyBuffer_Release(&row);
    PyBuffer_Release(&slot);
    PyBuffer_Release(&count);
    PyBuffer_Release(&first);
    PyBuffer_Release(&out_hit);
    PyBuffer_Release(&out_intent);
    PyBuffer_Release(&out_level);
    PyBuffer_Release(&out_key);
    return result;
}

KERNEL_DOC(pair_sums_doc,
"pair_sums(values, count, first, total) -> True, or None\n\n"
"total[h] = ((0.0 + values[first[h]]) + values[first[h] + 1]) + ... over the count[h] pairs of hit h, added in\n"
"pair order as the twin's passes add them: values and total float64, count and first int64 (hits). None\n"
"(total not filled) where a hit's pairs lie outside values.");

PyObject *pair_sums(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer values, count, first, total;
    if (!PyArg_ParseTuple(args, "y*y*y*w*:pair_sums", &values, &count, &first, &total)) return NULL;
    PyObject *result = NULL;
    Py_ssize_t hits = count.len / 8, pairs = values.len / 8;
    if (values.len % 8 || count.len % 8 || first.len != count.len || total.len != count.len) {
        PyErr_SetString(PyExc_ValueError, "pair_sums: arrays of the wrong sizes");
        goto release;
    }
    const double *value = values.buf;
    const int64_t *pair_count = count.buf, *pair_first = first.buf;
    double *sum = total.buf;
    int bad = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t h = 0; h < hits; h++) {
        int64_t p = pair_first[h], n = pair_count[h];
        if (p < 0 || n < 0 || p > pairs - n) { bad = 1; break; }
        double s = 0.0;
        for (int64_t k = 0; k < n; k++) s = s + value[p + k];
        sum[h] = s;
    }
    Py_END_ALLOW_THREADS
    result = bad ? Py_None : Py_True;
    Py_INCREF(result);
release:
    PyBuffer_Release(&values);
    PyBuffer_Release(&count);
    PyBuffer_Release(&first);
    PyBuffer_Release(&total);
    return result;
}

KERNEL_DOC(pair_layout_doc,
"pair_layout(keys, groups, order, prior, cell) -> width, or None\n\n"
"The pairs grouped by key (0 <= key < groups), pair order kept within a key, by one counting sort: order[j] the\n"
"j-th pair so grouped (a stable argsort of keys), prior[p] how many pairs before p share its key, width the\n"
"largest group (at least 1) and cell[j] = keys[order[j]] * width + prior[order[j]]. All int64 (pairs). None\n"
"(outputs not filled) for a key out of range.");

PyObject *pair_layout(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer keys, order, prior, cell;
    Py_ssize_t groups;
    if (!PyArg_ParseTuple(args, "y*nw*w*w*:pair_layout", &keys, &groups, &order, &prior, &cell)) return NULL;
    PyObject *result = NULL;
    Py_ssize_t pairs = keys.len / 8;
    if (keys.len % 8 || order.len != keys.len || prior.len != keys.len || cell.len != keys.len || groups < 0) {
        PyErr_SetString(PyExc_ValueError, "pair_layout: arrays of the wrong sizes");
        goto release;
    }
    int64_t *start = PyMem_Calloc((size_t)groups + 1, sizeof(int64_t));
    if (start == NULL) {
        PyErr_NoMemory();
        goto release;
    }
    const int64_t *key = keys.buf;
    int64_t *by_key = order.buf, *before = prior.buf, *at = cell.buf, width = 1;
    int bad = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t p = 0; p < pairs; p++) {  /* each key's count, then where its pairs start */
        if (key[p] < 0 || key[p] >= groups) { bad = 1; break; }
        int64_t seen = start[key[p] + 1]++;
        before[p] = seen;
        if (seen + 1 > width) width = seen + 1;
    }
    if (!bad) {
        for (Py_ssize_t g = 0; g < groups; g++) start[g + 1] += start[g];
        for (Py_ssize_t p = 0; p < pairs; p++) {
            int64_t j = start[key[p]] + before[p];
            by_key[j] = p;
            at[j] = key[p] * width + before[p];
        }
    }
    Py_END_ALLOW_THREADS
    PyMem_Free(start);
    result = bad ? Py_None : PyLong_FromLongLong(width);
    if (bad) Py_INCREF(result);
release:
    PyBuffer_Release(&keys);
    PyBuffer_Release(&order);
    PyBuffer_Release(&prior);
    PyBuffer_Release(&cell);
    return result;
}

KERNEL_DOC(pair_running_sums_doc,
"pair_running_sums(values, order, prior, out) -> True, or None\n\n"
"out[p] = the running sum of values over the pairs of p's key up to p, in pair order, added as np.cumsum adds a\n"
"row (the first value as it is, then one addition each): order and prior as pair_layout made them (int64),\n"
"values and out float64 (pairs). None (out not filled) for an order or prior out of range.");

PyObject *pair_running_sums(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer values, order, prior, out;
    if (!PyArg_ParseTuple(args, "y*y*y*w*:pair_running_sums", &values, &order, &prior, &out)) return NULL;
    PyObject *result = NULL;
    Py_ssize_t pairs = values.len / 8;
    if (values.len % 8 || order.len != values.len || prior.len != values.len || out.len != values.len) {
        PyErr_SetString(PyExc_ValueError, "pair_running_sums: arrays of the wrong sizes");
        goto release;
    }
    const double *value = values.buf;
    const int64_t *by_key = order.buf, *before = prior.buf;
    double *running = out.buf, sum = 0.0;
    int bad = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t j = 0; j < pairs; j++) {
        int64_t p = by_key[j];
        if (p < 0 || p >= pairs || before[p] < 0 || (before[p] > 0 && j == 0)) { bad = 1; break; }
        sum = before[p] ? sum + value[p] : value[p];
        running[p] = sum;
    }
    Py_END_ALLOW_THREADS
    result = bad ? Py_None : Py_True;
    Py_INCREF(result);
release:
    PyBuffer_Release(&values);
    PyBuffer_Release(&order);
    PyBuffer_Release(&prior);
    PyBuffer_Release(&out);
    return result;
}

KERNEL_DOC(graded_pair_sums_doc,
"graded_pair_sums(level, key, prior, kept, level_gain, top, weight, powers, count, first, total) -> True, or None\n\n"
"Each hit's graded novelty gain, summed over its pairs in pair order from 0.0: total[h] = (0.0 + w t) + w t ...\n"
"with, per pair p, r = level_gain[level[p]] / top[key[p]], t = (r * powers[prior[p]]) (times kept[p] where kept\n"
"is not empty: 1.0 or 0.0) and w = weight[key[p]], every operation numpy's, in numpy's order. level int16, key\n"
"and prior int64 (pairs), kept bool (pairs, or empty), level_gain, top, weight and powers float64 tables, count\n"
"and first int64 and total float64 (hits). None (total not filled) where an index lies outside its table or a\n"
"hit's pairs outside the pairs.");

PyObject *graded_pair_sums(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer level, key, prior, kept, level_gain, top, weight, powers, count, first, total;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*y*y*y*y*w*:graded_pair_sums", &level, &key, &prior, &kept, &level_gain,
                          &top, &weight, &powers, &count, &first, &total))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t pairs = key.len / 8, hits = count.len / 8, levels = level_gain.len / 8, keys = top.len / 8,
               rises = powers.len / 8;
    if (key.len % 8 || level.len != pairs * 2 || prior.len != key.len || (kept.len && kept.len != pairs) ||
        level_gain.len % 8 || top.len % 8 || weight.len != top.len || powers.len % 8 || count.len % 8 ||
        first.len != count.len || total.len != count.len) {
        PyErr_SetString(PyExc_ValueError, "graded_pair_sums: arrays of the wrong sizes");
        goto release;
    }
    double *terms = PyMem_Malloc((size_t)(pairs > 0 ? pairs : 1) * sizeof(double));
    if (terms == NULL) {
        PyErr_NoMemory();
        goto release;
    }
    const int16_t *lv = level.buf;
    const int64_t *k = key.buf, *c = prior.buf, *pair_count = count.buf, *pair_first = first.buf;
    const unsigned char *keep = kept.len ? kept.buf : NULL;
    const double *gain = level_gain.buf, *best = top.buf, *w = weight.buf, *power = powers.buf;
    double *sum = total.buf;
    int bad = 0;
    Py_BEGIN_ALLOW_THREADS
    /* every index checked first, then the terms in one branch-free pass, then each hit's sum */
    for (Py_ssize_t j = 0; j < pairs; j++)
        bad |= (lv[j] < 0) | (lv[j] >= levels) | (k[j] < 0) | (k[j] >= keys) | (c[j] < 0) | (c[j] >= rises);
    for (Py_ssize_t h = 0; h < hits && !bad; h++)
        bad = pair_first[h] < 0 || pair_count[h] < 0 || pair_first[h] > pairs - pair_count[h];
    if (!bad) {
        for (Py_ssize_t j = 0; j < pairs; j++) {
            double term = (gain[lv[j]] / best[k[j]]) * power[c[j]];
            if (keep) term = term * (keep[j] ? 1.0 : 0.0);
            terms[j] = w[k[j]] * term;
        }
        for (Py_ssize_t h = 0; h < hits; h++) {
            double s = 0.0;
            for (int64_t j = pair_first[h]; j < pair_first[h] + pair_count[h]; j++) s = s + terms[j];
            sum[h] = s;
        }
    }
    Py_END_ALLOW_THREADS
    PyMem_Free(terms);
    result = bad ? Py_None : Py_True;
    Py_INCREF(result);
release:
    PyBuffer_Release(&level);
    PyBuffer_Release(&key);
    PyBuffer_Release(&prior);
    PyBuffer_Release(&kept);
    PyBuffer_Release(&level_gain);
    PyBuffer_Release(&top);
    PyBuffer_Release(&weight);
    PyBuffer_Release(&powers);
    PyBuffer_Release(&count);
    PyBuffer_Release(&first);
    PyBuffer_Release(&total);
    return result;
}
