/* Compiled kernels of divaleval, one C file per concern, built into one extension (divaleval.native._kernels):
 *
 *   parse.c   splitting a run file into columns (twin: the reader of divaleval/io/table.py)
 *   lines.c   splitting a block of lines into fields (twin: the numpy splitter, divaleval/io/lines.py)
 *   match.c   matching (group, text) keys to a table of judged keys (twin: divaleval/model/text_keys.py)
 *   print.c   printing numbers as printf("%.<digits>f") (twin: divaleval/output/formatting.py)
 *   sums.c    masked row sums and P+'s parts (at one cutoff or several), the blended ratio, ERR's stopping
 *             probabilities, every NCU kernel's sums of a gain list at once, GAP's terms, infAP's and bpref's
 *             sums (twins: divaleval/native/sums.py)
 *   hits.c    the (hit, intent) pairs of a ranking's hits, their sums per hit (graded novelty gains among
 *             them), their grouping by intent and running sums per intent
 *             (twins: divaleval/native/hits.py)
 *   greedy.c  the greedy ideal ranking of the novelty measures (twin: divaleval/native/greedy.py)
 *   module.c  the method table
 *
 * Each stands in for a numpy, Arrow or Python path and either gives exactly what that path gives, bit for bit,
 * or declines (returns None) and leaves the input to it. So a kernel takes only the plain case and declines
 * anything unusual (another whitespace byte, an empty field, a number it cannot read exactly, keys that share
 * hashes), and the Python path, which names the line of any problem, decides. The heavy loops run without the
 * GIL. divaleval/native looks each kernel up by name, so that dropping one (its file and its line of the
 * method table) only loses its speed. tests/test_native_kernels.py holds every kernel to its twin.
 */
#ifndef DIVALEVAL_KERNELS_H
#define DIVALEVAL_KERNELS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>

/* A kernel's docstring, named by module.c's method table. */
#define KERNEL_DOC(name, text) const char name[] = PyDoc_STR(text)

static inline uint64_t little_endian(uint64_t word) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return __builtin_bswap64(word);
#else
    return word;
#endif
}

/* Whether a buffer of len bytes holds exactly rows x width items of item bytes (no product overflowing). */
static inline int holds(Py_ssize_t len, Py_ssize_t rows, Py_ssize_t width, Py_ssize_t item) {
    if (rows < 0 || width < 0 || (width && rows > PY_SSIZE_T_MAX / width / item)) return 0;
    return len == rows * width * item;
}

/* parse.c */
void parse_init(void);
extern const char split_run_doc[];
PyObject *split_run(PyObject *self, PyObject *args);
extern const char split_qrels_doc[];
PyObject *split_qrels(PyObject *self, PyObject *args);

/* lines.c */
extern const char split_fields_doc[];
PyObject *split_fields(PyObject *self, PyObject *args);

/* match.c */
extern const char match_keys_doc[];
PyObject *match_keys(PyObject *self, PyObject *args);

/* print.c */
extern const char fixed_rows_doc[];
PyObject *fixed_rows(PyObject *self, PyObject *args);

/* sums.c */
extern const char masked_row_sums_doc[], cut_row_sums_doc[], p_plus_parts_doc[], cut_p_plus_parts_doc[],
    blended_ratio_doc[], err_probability_doc[], gain_list_sums_doc[], gap_terms_doc[], inferred_precision_sums_doc[],
    bpref_sums_doc[];
PyObject *masked_row_sums(PyObject *self, PyObject *args);
PyObject *cut_row_sums(PyObject *self, PyObject *args);
PyObject *p_plus_parts(PyObject *self, PyObject *args);
PyObject *cut_p_plus_parts(PyObject *self, PyObject *args);
PyObject *blended_ratio(PyObject *self, PyObject *args);
PyObject *err_probability(PyObject *self, PyObject *args);
PyObject *gain_list_sums(PyObject *self, PyObject *args);
PyObject *gap_terms(PyObject *self, PyObject *args);
PyObject *inferred_precision_sums(PyObject *self, PyObject *args);
PyObject *bpref_sums(PyObject *self, PyObject *args);

/* hits.c */
extern const char hit_pair_counts_doc[], hit_pairs_doc[], pair_sums_doc[], pair_layout_doc[], pair_running_sums_doc[],
    graded_pair_sums_doc[];
PyObject *hit_pair_counts(PyObject *self, PyObject *args);
PyObject *hit_pairs(PyObject *self, PyObject *args);
PyObject *pair_sums(PyObject *self, PyObject *args);
PyObject *pair_layout(PyObject *self, PyObject *args);
PyObject *pair_running_sums(PyObject *self, PyObject *args);
PyObject *graded_pair_sums(PyObject *self, PyObject *args);

/* greedy.c */
extern const char greedy_ranking_gains_doc[];
PyObject *greedy_ranking_gains(PyObject *self, PyObject *args);

#endif
