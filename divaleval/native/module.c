/* The extension's method table: one line a kernel (see kernels.h). divaleval/native looks each kernel up by
 * name, so a line removed here (with its C function) only loses that kernel's speed. */
#include "kernels.h"

static PyMethodDef methods[] = {
    {"split_run", split_run, METH_VARARGS, split_run_doc},
    {"split_qrels", split_qrels, METH_VARARGS, split_qrels_doc},
    {"split_fields", split_fields, METH_VARARGS, split_fields_doc},
    {"match_keys", match_keys, METH_VARARGS, match_keys_doc},
    {"fixed_rows", fixed_rows, METH_VARARGS, fixed_rows_doc},
    {"masked_row_sums", masked_row_sums, METH_VARARGS, masked_row_sums_doc},
    {"cut_row_sums", cut_row_sums, METH_VARARGS, cut_row_sums_doc},
    {"p_plus_parts", p_plus_parts, METH_VARARGS, p_plus_parts_doc},
    {"cut_p_plus_parts", cut_p_plus_parts, METH_VARARGS, cut_p_plus_parts_doc},
    {"blended_ratio", blended_ratio, METH_VARARGS, blended_ratio_doc},
    {"err_probability", err_probability, METH_VARARGS, err_probability_doc},
    {"gain_list_sums", gain_list_sums, METH_VARARGS, gain_list_sums_doc},
    {"gap_terms", gap_terms, METH_VARARGS, gap_terms_doc},
    {"inferred_precision_sums", inferred_precision_sums, METH_VARARGS, inferred_precision_sums_doc},
    {"bpref_sums", bpref_sums, METH_VARARGS, bpref_sums_doc},
    {"hit_pair_counts", hit_pair_counts, METH_VARARGS, hit_pair_counts_doc},
    {"hit_pairs", hit_pairs, METH_VARARGS, hit_pairs_doc},
    {"pair_sums", pair_sums, METH_VARARGS, pair_sums_doc},
    {"pair_layout", pair_layout, METH_VARARGS, pair_layout_doc},
    {"pair_running_sums", pair_running_sums, METH_VARARGS, pair_running_sums_doc},
    {"graded_pair_sums", graded_pair_sums, METH_VARARGS, graded_pair_sums_doc},
    {"greedy_ranking_gains", greedy_ranking_gains, METH_VARARGS, greedy_ranking_gains_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_kernels", "Compiled kernels of divaleval (see divaleval/native).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__kernels(void) {
    parse_init();
    return PyModule_Create(&module);
}
