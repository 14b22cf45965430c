#include "kernels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* -- printing numbers ------------------------------------------------------------------------------------
 * printf("%.<digits>f") as glibc prints it: the exact binary value rounded to `digits` decimals, ties to even.
 * A double is m 2^e (m an integer below 2^53), so v 10^digits = m 10^digits 2^e is an integer of at most
 * 83 bits shifted by e: 128-bit integers hold it exactly, and the bits shifted out decide the rounding. */

#if defined(__SIZEOF_INT128__)
#define HAVE_INT128 1
#define MAX_DIGITS 9

/* The text of one value into out (room for 40 bytes); its length. */
static int fixed_text(double value, int digits, uint64_t scale, char *out) {
    char *start = out;
    if (isnan(value)) {
        memcpy(out, "-nan", 4);  /* C on x86-64 prints 0.0/0.0 so: ndeval's undefined values */
        return 4;
    }
    if (signbit(value)) {
        *out++ = '-';
        value = -value;
    }
    if (isinf(value)) {
        memcpy(out, "inf", 3);
        return (int)(out - start) + 3;
    }
    int exponent;
    double fraction = frexp(value, &exponent);             /* value = fraction 2^exponent, 0.5 <= fraction < 1 */
    uint64_t mantissa = (uint64_t)ldexp(fraction, 53);     /* exact: value = mantissa 2^(exponent - 53) */
    int shift = 53 - exponent;                             /* value = mantissa / 2^shift */
    unsigned __int128 scaled = (unsigned __int128)mantissa * scale, quotient;
    if (value == 0.0) {
        quotient = 0;
    } else if (shift <= 0) {
        if (shift < -40) return -1;                        /* beyond 2^93: not this path's */
        quotient = scaled << -shift;
    } else if (shift >= 128) {
        quotient = 0;                                      /* below 2^-75: rounds to 0 at 9 digits and fewer */
    } else {
        quotient = scaled >> shift;
        unsigned __int128 rest = scaled - (quotient << shift), half = (unsigned __int128)1 << (shift - 1);
        if (rest > half || (rest == half && (quotient & 1))) quotient++;
    }
    unsigned __int128 whole = quotient / scale;
    uint64_t part = (uint64_t)(quotient - whole * scale);
    char reversed[40];
    int n = 0;
    do {
        reversed[n++] = (char)('0' + (int)(whole % 10));
        whole /= 10;
    } while (whole);
    while (n) *out++ = reversed[--n];
    if (digits) {
        *out++ = '.';
        for (int j = digits - 1; j >= 0; j--) {
            out[j] = (char)('0' + (int)(part % 10));
            part /= 10;
        }
        out += digits;
    }
    return (int)(out - start);
}
#endif

KERNEL_DOC(fixed_rows_doc,
"fixed_rows(matrix, rows, columns, digits, separator) -> list | None\n\n"
"Each row of a (rows, columns) float64 matrix in C order as its values printed by printf(\"%.<digits>f\")\n"
"(NaN as -nan), joined by the one-character separator: a list of str; None where this kernel does not\n"
"print such numbers (more than 9 digits, a value beyond 2^93) or such a separator (beyond ASCII).");

PyObject *fixed_rows(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer matrix;
    Py_ssize_t rows, columns;
    int digits;
    int separator;
    if (!PyArg_ParseTuple(args, "y*nniC:fixed_rows", &matrix, &rows, &columns, &digits, &separator)) return NULL;
    PyObject *result = NULL;
#ifdef HAVE_INT128
    char *text = NULL;
    Py_ssize_t *ends = NULL;
    if (!holds(matrix.len, rows, columns, sizeof(double))) {
        PyErr_SetString(PyExc_ValueError, "fixed_rows: a matrix of the wrong shape");
        goto release;
    }
    if (digits < 0 || digits > MAX_DIGITS || separator > 127) goto decline;
    uint64_t scale = 1;
    for (int j = 0; j < digits; j++) scale *= 10;
    size_t room = (size_t)(rows * columns) * 48 + 1;
    text = malloc(room);
    ends = malloc((size_t)(rows ? rows : 1) * sizeof(Py_ssize_t));
    if (!text || !ends) {
        PyErr_NoMemory();
        goto release;
    }
    const double *values = matrix.buf;
    int declined = 0;
    Py_BEGIN_ALLOW_THREADS
    char *out = text;
    for (Py_ssize_t r = 0; r < rows && !declined; r++) {
        for (Py_ssize_t c = 0; c < columns; c++) {
            if (c) *out++ = (char)separator;
            int n = fixed_text(values[r * columns + c], digits, scale, out);
            if (n < 0) {
                declined = 1;
                break;
            }
            out += n;
        }
        ends[r] = out - text;
    }
    Py_END_ALLOW_THREADS
    if (declined) goto decline;
    result = PyList_New(rows);
    if (!result) goto release;
    for (Py_ssize_t r = 0; r < rows; r++) {
        Py_ssize_t begin = r ? ends[r - 1] : 0;
        PyObject *line = PyUnicode_DecodeASCII(text + begin, ends[r] - begin, NULL);
        if (!line) {
            Py_CLEAR(result);
            goto release;
        }
        PyList_SET_ITEM(result, r, line);
    }
    goto release;
decline:
    result = Py_None;
    Py_INCREF(result);
release:
    free(text);
    free(ends);
#else
    (void)rows;
    (void)columns;
    (void)digits;
    (void)separator;
    result = Py_None;
    Py_INCREF(result);
#endif
    PyBuffer_Release(&matrix);
    return result;
}
