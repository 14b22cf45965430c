/* The greedy ideal ranking of ndeval's novelty measures (twin: divaleval/native/greedy.py).
 *
 * Per topic, rank after rank: every available document's gain is the sum, in its pairs' order (ascending
 * intent), of its intents' current gains (each times the pair's factor, where factors are given), the first
 * term as it is, then one addition each; the first largest gain in document order is taken while it is > 0,
 * recorded, and each of its intents' gains multiplied by q. The twin does the same for a batch of topics at
 * once in numpy, the same operations in the same order, so the same bits. Factors that are negative or not
 * finite (where a NaN would be compared) make the kernel decline.
 */
#include "kernels.h"

#include <float.h>
#include <string.h>

KERNEL_DOC(greedy_ranking_gains_doc,
"greedy_ranking_gains(doc_start, pair_start, pair_intent, pair_factor, intents, q, width, out) -> True, or None\n\n"
"Topic t's documents are doc_start[t]:doc_start[t + 1] (int64, topics + 1), in the order ties are broken in\n"
"(the first largest gain is taken); document d's pairs are pair_start[d]:pair_start[d + 1] (int64, documents +\n"
"1), relevant to intent pair_intent[p] (int64, 0 <= intent < intents), with factor pair_factor[p] (float64, or\n"
"empty: 1, the binary gain). out (float64, topics x width, written whole) holds each topic's chosen gains, its\n"
"first width ranks, 0 after the last gain > 0. None (out not filled) for an index out of range, a factor\n"
"negative or not finite, or q outside [0, 1].");

PyObject *greedy_ranking_gains(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer doc_start, pair_start, pair_intent, pair_factor, out;
    Py_ssize_t intents, width;
    double q;
    if (!PyArg_ParseTuple(args, "y*y*y*y*ndnw*:greedy_ranking_gains", &doc_start, &pair_start, &pair_intent,
                          &pair_factor, &intents, &q, &width, &out))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t topics = doc_start.len / 8 - 1, docs = pair_start.len / 8 - 1, pairs = pair_intent.len / 8;
    if (doc_start.len % 8 || topics < 0 || pair_start.len % 8 || docs < 0 || pair_intent.len % 8 ||
        (pair_factor.len && pair_factor.len != pair_intent.len) || intents < 0 ||
        !holds(out.len, topics, width, 8)) {
        PyErr_SetString(PyExc_ValueError, "greedy_ranking_gains: arrays of the wrong sizes");
        goto release;
    }
    const int64_t *first_doc = doc_start.buf, *first_pair = pair_start.buf, *intent = pair_intent.buf;
    const double *factor = pair_factor.len ? pair_factor.buf : NULL;
    double *chosen = out.buf;
    int bad = !(q >= 0.0 && q <= 1.0);
    Py_ssize_t most = 0;  /* the most documents of a topic */
    for (Py_ssize_t t = 0; t < topics && !bad; t++) {
        int64_t from = first_doc[t], to = first_doc[t + 1];
        bad = from < 0 || to < from || to > docs;
        if (!bad && to - from > most) most = (Py_ssize_t)(to - from);
    }
    if (bad) {
        result = Py_None;
        Py_INCREF(result);
        goto release;
    }
    double *gain = PyMem_Malloc((size_t)(intents > 0 ? intents : 1) * sizeof(double));
    int64_t *left = PyMem_Malloc((size_t)(most > 0 ? most : 1) * sizeof(int64_t));
    if (gain == NULL || left == NULL) {
        PyMem_Free(gain);
        PyMem_Free(left);
        PyErr_NoMemory();
        goto release;
    }
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t d = 0; d < docs && !bad; d++)
        bad = first_pair[d] < 0 || first_pair[d + 1] < first_pair[d] || first_pair[d + 1] > pairs;
    for (Py_ssize_t p = 0; p < pairs && !bad; p++)
        bad = intent[p] < 0 || intent[p] >= intents || (factor && !(factor[p] >= 0.0 && factor[p] <= DBL_MAX));
    if (!bad) {
        memset(chosen, 0, (size_t)topics * (size_t)width * sizeof(double));
        for (Py_ssize_t t = 0; t < topics; t++) {
            double *row = chosen + t * width;
            Py_ssize_t available = 0;
            for (int64_t d = first_doc[t]; d < first_doc[t + 1]; d++) left[available++] = d;
            for (Py_ssize_t i = 0; i < intents; i++) gain[i] = 1.0;
            for (Py_ssize_t rank = 0; rank < width && available > 0; rank++) {
                /* The first largest gain > 0 (the twin's argmax, where the documents taken, and those without a
                 * pair, are at -1: only a gain > 0 is ever taken). */
                double best_gain = 0.0;
                Py_ssize_t best = -1;
                for (Py_ssize_t j = 0; j < available; j++) {
                    int64_t p = first_pair[left[j]], end = first_pair[left[j] + 1];
                    if (p == end) continue;
                    double g = factor ? factor[p] * gain[intent[p]] : gain[intent[p]];
                    for (p++; p < end; p++) g = g + (factor ? factor[p] * gain[intent[p]] : gain[intent[p]]);
                    if (g > best_gain) {
                        best_gain = g;
                        best = j;
                    }
                }
                if (best < 0) break;
                row[rank] = best_gain;
                int64_t d = left[best];
                for (int64_t p = first_pair[d]; p < first_pair[d + 1]; p++) gain[intent[p]] = gain[intent[p]] * q;
                memmove(left + best, left + best + 1, (size_t)(available - best - 1) * sizeof(int64_t));
                available--;
            }
        }
    }
    Py_END_ALLOW_THREADS
    PyMem_Free(gain);
    PyMem_Free(left);
    result = bad ? Py_None : Py_True;
    Py_INCREF(result);
release:
    PyBuffer_Release(&doc_start);
    PyBuffer_Release(&pair_start);
    PyBuffer_Release(&pair_intent);
    PyBuffer_Release(&pair_factor);
    PyBuffer_Release(&out);
    return result;
}
