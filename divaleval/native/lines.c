/* Splitting a block of whole lines into fields (twin: io/lines.py's numpy split_block).
 *
 * A field is a longest run of bytes that are not separators; the separators are the dialect's space bytes
 * and the newline, which also ends a line. The kernel gives what the twin gives: each field's start and end
 * offset in the block, in file order, and how many fields each line holds. It declines (None) a dialect with
 * a separator above the space, and a block that is empty or does not end with a newline; NUL bytes and a
 * byte order mark are the reader's concern, before the block is split.
 *
 * The block is read 64 bytes at a time as bit masks (bit i: byte i is a separator, a newline), compared a
 * vector at a time where SSE2 is there, so that no branch depends on a field's length: a field starts
 * where a separator is followed by another byte, and ends at a separator that follows another byte. A first
 * pass makes the masks and counts fields and lines, a second (once the arrays are sized) writes them. */
#include "kernels.h"

#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define SEPARATOR 1
#define LINE_END 2
#define VECTOR_SPACES 8   /* up to this many separator bytes are compared a vector at a time */

typedef struct {
    unsigned char kind[256];          /* SEPARATOR, and LINE_END for the newline */
    unsigned char bytes[256];         /* the separators, newline first */
    int count;
} Separators;

static inline int popcount64(uint64_t word) {
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_popcountll(word);
#else
    int count = 0;
    for (; word; word &= word - 1) count++;
    return count;
#endif
}

static inline int lowest_bit(uint64_t word) {
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctzll(word);
#else
    int bit = 0;
    while (!(word & 1)) {
        word >>= 1;
        bit++;
    }
    return bit;
#endif
}

/* The masks of the n (at most 64) bytes at p: separators (bits past n set: the block ends with a newline,
 * so they start and end no field) and newlines. */
static inline void masks_of(const unsigned char *p, Py_ssize_t n, const Separators *separators,
                            uint64_t *separator, uint64_t *newline) {
#if defined(__SSE2__)
    if (n == 64 && separators->count <= VECTOR_SPACES) {
        uint64_t any = 0, line = 0;
        for (int part = 0; part < 4; part++) {
            __m128i bytes = _mm_loadu_si128((const __m128i *)(p + 16 * part));
            __m128i is_line = _mm_cmpeq_epi8(bytes, _mm_set1_epi8('\n'));
            __m128i is_any = is_line;
            for (int k = 1; k < separators->count; k++)
                is_any = _mm_or_si128(is_any, _mm_cmpeq_epi8(bytes, _mm_set1_epi8((char)separators->bytes[k])));
            any |= (uint64_t)(unsigned)_mm_movemask_epi8(is_any) << (16 * part);
            line |= (uint64_t)(unsigned)_mm_movemask_epi8(is_line) << (16 * part);
        }
        *separator = any;
        *newline = line;
        return;
    }
#endif
    uint64_t any = n < 64 ? ~UINT64_C(0) << n : 0, line = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        uint64_t kind = separators->kind[p[i]];
        any |= (kind & SEPARATOR) << i;
        line |= (kind >> 1) << i;
    }
    *separator = any;
    *newline = line;
}

/* Where fields start and end in a word, given whether the byte before it is a separator. */
static inline uint64_t starts_of(uint64_t separator, uint64_t before) {
    return ~separator & (separator << 1 | before);
}

static inline uint64_t ends_of(uint64_t separator, uint64_t before) {
    return separator & ~(separator << 1 | before);
}

/* Counts the fields and lines of the block (size > 0, ending with a newline), keeping its masks. */
static void count_fields(const unsigned char *data, Py_ssize_t size, const Separators *separators,
                         uint64_t *separator, uint64_t *newline, Py_ssize_t *fields, Py_ssize_t *lines) {
    Py_ssize_t words = (size + 63) / 64, ended = 0, line_ends = 0;
    uint64_t before = 1;  /* a field may start the block */
    for (Py_ssize_t w = 0; w < words; w++) {
        Py_ssize_t n = size - 64 * w < 64 ? size - 64 * w : 64;
        masks_of(data + 64 * w, n, separators, &separator[w], &newline[w]);
        ended += popcount64(ends_of(separator[w], before));
        line_ends += popcount64(newline[w]);
        before = separator[w] >> 63;
    }
    *fields = ended;
    *lines = line_ends;
}

/* Writes each field's start and end, and each line's count of fields, from the masks. */
static void write_fields(Py_ssize_t size, const uint64_t *separator, const uint64_t *newline,
                         Py_ssize_t *starts, Py_ssize_t *ends, Py_ssize_t *per_line) {
    Py_ssize_t words = (size + 63) / 64, started = 0, ended = 0, line = 0, line_first = 0;
    uint64_t before = 1;
    for (Py_ssize_t w = 0; w < words; w++) {
        Py_ssize_t base = 64 * w;
        uint64_t start = starts_of(separator[w], before), end = ends_of(separator[w], before);
        for (uint64_t line_end = newline[w]; line_end; line_end &= line_end - 1) {
            int bit = lowest_bit(line_end);
            uint64_t through = bit == 63 ? ~UINT64_C(0) : (UINT64_C(2) << bit) - 1;
            Py_ssize_t fields = ended + popcount64(end & through);  /* a field may end at the newline */
            per_line[line++] = fields - line_first;
            line_first = fields;
        }
        for (; start; start &= start - 1) starts[started++] = base + lowest_bit(start);
        for (; end; end &= end - 1) ends[ended++] = base + lowest_bit(end);
        before = separator[w] >> 63;
    }
}

KERNEL_DOC(split_fields_doc,
"split_fields(block, space) -> (starts, ends, per_line) | None\n\n"
"A block of whole lines (ending with a newline) split into fields on the bytes of `space` and the newline:\n"
"field k is block[starts[k]:ends[k]], line i holds per_line[i] fields; each a bytearray of Py_ssize_t.\n"
"None where the kernel declines: a space byte above 0x20, an empty block, or one not ending with a newline.");

PyObject *split_fields(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer block, space;
    if (!PyArg_ParseTuple(args, "y*y*:split_fields", &block, &space)) return NULL;
    const unsigned char *data = block.buf;
    Py_ssize_t size = block.len;
    Separators separators;
    memset(&separators, 0, sizeof separators);
    separators.kind['\n'] = SEPARATOR | LINE_END;
    separators.bytes[separators.count++] = '\n';
    int plain = size > 0 && data[size - 1] == '\n';
    for (Py_ssize_t i = 0; i < space.len; i++) {
        unsigned char c = ((const unsigned char *)space.buf)[i];
        plain = plain && c <= 0x20;
        if (!separators.kind[c]) separators.bytes[separators.count++] = c;
        separators.kind[c] |= SEPARATOR;
    }
    PyBuffer_Release(&space);
    PyObject *result = NULL, *starts = NULL, *ends = NULL, *per_line = NULL;
    uint64_t *separator = NULL, *newline = NULL;
    if (!plain) {
        result = Py_None;
        Py_INCREF(result);
        goto done;
    }
    Py_ssize_t words = (size + 63) / 64, fields, lines;
    separator = malloc((size_t)words * sizeof(uint64_t));
    newline = malloc((size_t)words * sizeof(uint64_t));
    if (!separator || !newline) {
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    count_fields(data, size, &separators, separator, newline, &fields, &lines);
    Py_END_ALLOW_THREADS
    const Py_ssize_t item = (Py_ssize_t)sizeof(Py_ssize_t);
    starts = PyByteArray_FromStringAndSize(NULL, fields * item);
    ends = PyByteArray_FromStringAndSize(NULL, fields * item);
    per_line = PyByteArray_FromStringAndSize(NULL, lines * item);
    if (!starts || !ends || !per_line) goto done;
    Py_BEGIN_ALLOW_THREADS
    write_fields(size, separator, newline, (Py_ssize_t *)PyByteArray_AS_STRING(starts),
                 (Py_ssize_t *)PyByteArray_AS_STRING(ends), (Py_ssize_t *)PyByteArray_AS_STRING(per_line));
    Py_END_ALLOW_THREADS
    result = PyTuple_Pack(3, starts, ends, per_line);
done:
    free(separator);
    free(newline);
    Py_XDECREF(starts);
    Py_XDECREF(ends);
    Py_XDECREF(per_line);
    PyBuffer_Release(&block);
    return result;
}
