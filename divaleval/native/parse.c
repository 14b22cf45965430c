#include "kernels.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#if defined(__unix__) || defined(__APPLE__)
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

#if defined(__GLIBC__) || defined(__APPLE__) || defined(__FreeBSD__)
#include <locale.h>
#if defined(__APPLE__)
#include <xlocale.h>
#endif
#define HAVE_STRTOD_L 1
static locale_t c_locale = (locale_t)0;  /* strtod in the "C" locale, whatever the process's */
#endif

/* -- splitting a run file ---------------------------------------------------------------------------- */

enum { ORDINARY = 0, SEPARATOR = 1, NEWLINE = 2, OTHER_SPACE = 3 };

#define WIDTH 6            /* topic Q0 docno rank score runtag */
#define INT_DIGITS 18      /* an integer of at most this many digits fits in 64 bits */
#define REAL_DIGITS 19     /* significant digits a real's mantissa holds before strtod is needed */
#define REAL_TOKEN 64      /* the longest real handed to strtod */

static const double POWERS_OF_TEN[23] = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static inline int is_digit(unsigned char c) { return (unsigned)(c - '0') < 10; }

/* [+-]?[0-9]+ of at most INT_DIGITS digits; 0 if read, -1 to decline. */
static int read_integer(const unsigned char *p, const unsigned char *end, int64_t *out) {
    int negative = 0;
    if (p < end && (*p == '+' || *p == '-')) {
        negative = *p == '-';
        p++;
    }
    if (p == end || end - p > INT_DIGITS) return -1;
    int64_t value = 0;
    for (; p < end; p++) {
        if (!is_digit(*p)) return -1;
        value = value * 10 + (*p - '0');
    }
    *out = negative ? -value : value;
    return 0;
}

/* Eight bytes as a little-endian word (the first byte lowest). */
static inline uint64_t eight_bytes(const unsigned char *p) {
    uint64_t word;
    memcpy(&word, p, 8);
    return little_endian(word);
}

/* Whether all eight bytes of a word are ASCII digits: each byte's high half 3, and its low half plus 6 below 16. */
static inline int eight_digits(uint64_t word) {
    const uint64_t highs = UINT64_C(0xF0F0F0F0F0F0F0F0);
    return ((word & highs) | (((word + UINT64_C(0x0606060606060606)) & highs) >> 4)) == UINT64_C(0x3333333333333333);
}

/* The value of eight ASCII digits (the first the most significant), three multiplications: pairs of digits,
 * then pairs of pairs, then the two halves. */
static inline uint64_t eight_digits_value(uint64_t word) {
    const uint64_t pair_mask = UINT64_C(0x000000FF000000FF);
    word -= UINT64_C(0x3030303030303030);
    word = word * 10 + (word >> 8);  /* each byte pair's first byte: 10 x its first digit + its second */
    return (((word & pair_mask) * UINT64_C(0x000F424000000064)) +          /* x 100 and x 1,000,000 */
            (((word >> 16) & pair_mask) * UINT64_C(0x0000271000000001))) >> 32;  /* x 1 and x 10,000 */
}

/* The first byte at or after p that is no ASCII digit (or end), eight bytes at a time while they all are. */
static inline const unsigned char *digits_end(const unsigned char *p, const unsigned char *end) {
    while (end - p >= 8 && eight_digits(eight_bytes(p))) p += 8;
    while (p < end && is_digit(*p)) p++;
    return p;
}

/* The mantissa times 10^(end - p) plus the digits p[0 : end - p] (all ASCII digits; the result fits). */
static inline uint64_t with_digits(uint64_t mantissa, const unsigned char *p, const unsigned char *end) {
    for (; end - p >= 8; p += 8) mantissa = mantissa * 100000000 + eight_digits_value(eight_bytes(p));
    for (; p < end; p++) mantissa = mantissa * 10 + (uint64_t)(*p - '0');
    return mantissa;
}

/* A plain decimal real, [+-]?(digits[.digits*]|.digits)([eE][+-]?digits)?, correctly rounded (as Arrow's
 * parser and C's strtod round); 0 if read, -1 to decline (inf, nan, hexadecimal, out of range). */
static int read_real(const unsigned char *start, const unsigned char *end, double *out) {
    const unsigned char *p = start;
    int negative = 0, long_mantissa = 0;
    uint64_t mantissa = 0;
    long exponent = 0;
    if (p < end && (*p == '+' || *p == '-')) {
        negative = *p == '-';
        p++;
    }
    /* The digits found first, then read: the significant ones (past leading zeros, each of those in the
     * fraction a place further right) make the mantissa, at most REAL_DIGITS of them. */
    const unsigned char *whole = p;
    p = digits_end(p, end);
    const unsigned char *whole_end = p, *fraction = p, *fraction_end = p;
    if (p < end && *p == '.') {
        fraction = ++p;
        p = digits_end(p, end);
        fraction_end = p;
    }
    if (whole == whole_end && fraction == fraction_end) return -1;  /* no digit */
    while (whole < whole_end && *whole == '0') whole++;
    if (whole == whole_end) {  /* no significant digit before the point: the fraction's zeros lead */
        const unsigned char *first = fraction;
        while (first < fraction_end && *first == '0') first++;
        exponent -= (long)(first - fraction);
        fraction = first;
    }
    if ((whole_end - whole) + (fraction_end - fraction) > REAL_DIGITS) {
        long_mantissa = 1;  /* (more than a mantissa holds: strtod reads it) */
    } else {
        mantissa = with_digits(with_digits(0, whole, whole_end), fraction, fraction_end);
        exponent -= (long)(fraction_end - fraction);
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        int exponent_negative = 0;
        long written = 0;
        p++;
        if (p < end && (*p == '+' || *p == '-')) {
            exponent_negative = *p == '-';
            p++;
        }
        if (p == end || !is_digit(*p)) return -1;
        for (; p < end && is_digit(*p); p++)
            if (written < 100000) written = written * 10 + (*p - '0');
        exponent += exponent_negative ? -written : written;
    }
    if (p != end) return -1;
    double value;
    if (mantissa == 0 && !long_mantissa) {
        value = 0.0;
    } else if (!long_mantissa && mantissa <= (UINT64_C(1) << 53) && exponent >= -22 && exponent <= 22) {
        /* Both operands exact: one IEEE operation rounds correctly (Clinger's fast path). */
        value = exponent < 0 ? (double)mantissa / POWERS_OF_TEN[-exponent]
                             : (double)mantissa * POWERS_OF_TEN[exponent];
    } else {
#ifdef HAVE_STRTOD_L
        char token[REAL_TOKEN];
        char *stop;
        Py_ssize_t n = end - start;
        if (n >= REAL_TOKEN || c_locale == (locale_t)0) return -1;
        memcpy(token, start, (size_t)n);
        token[n] = '\0';
        errno = 0;
        value = strtod_l(token, &stop, c_locale);
        if (stop != token + n || errno == ERANGE || !isfinite(value)) return -1;
        *out = value;  /* strtod read the sign */
        return 0;
#else
        return -1;
#endif
    }
    *out = negative ? -value : value;
    return 0;
}

/* The distinct labels of a column (a run's topics; qrels' topics, intents and docnos), in first-seen order, their
 * bytes copied one after the other (so that nothing behind the line being read is looked at again), found by an
 * open-addressing map. */
typedef struct {
    unsigned char *text;         /* label j: text[start[j] : start[j] + length[j]] */
    size_t text_used, text_room;
    Py_ssize_t *start, *length;
    Py_ssize_t count, room;
    int32_t *slot;               /* code + 1 of the label in each slot, 0 when empty */
    size_t mask;
} LabelMap;

/* Eight bytes at a time (a docno is some 25), each word multiplied in, then MurmurHash3's fmix64, so that the low
 * bits a slot is chosen by depend on every byte. */
static uint64_t bytes_hash(const unsigned char *p, Py_ssize_t n) {
    uint64_t h = (uint64_t)n * UINT64_C(0x9E3779B97F4A7C15), word;
    for (; n >= 8; p += 8, n -= 8) {
        memcpy(&word, p, 8);
        h = (h ^ word) * UINT64_C(0xFF51AFD7ED558CCD);
        h ^= h >> 32;
    }
    if (n > 0) {
        word = 0;
        memcpy(&word, p, (size_t)n);
        h = (h ^ word) * UINT64_C(0xFF51AFD7ED558CCD);
    }
    h ^= h >> 33;
    h *= UINT64_C(0xC4CEB9FE1A85EC53);
    return h ^ (h >> 33);
}

/* Slots a label is looked for in before the kernel declines the file: never reached by chance in a map at most half
 * full (a run of 256 full slots there is some 1e-20 likely), only by labels made to share hashes, whose file the
 * Python reader then reads (Arrow's hash table). */
#define MAX_PROBES 256

static int label_map_grow(LabelMap *map) {
    size_t slots = map->mask ? 2 * (map->mask + 1) : 64;
    int32_t *slot = calloc(slots, sizeof(int32_t));
    if (!slot) return -1;
    for (Py_ssize_t j = 0; j < map->count; j++) {
        size_t at = bytes_hash(map->text + map->start[j], map->length[j]) & (slots - 1);
        while (slot[at]) at = (at + 1) & (slots - 1);
        slot[at] = (int32_t)(j + 1);
    }
    free(map->slot);
    map->slot = slot;
    map->mask = slots - 1;
    return 0;
}

static inline int label_is(const LabelMap *map, int32_t code, const unsigned char *label, Py_ssize_t n) {
    return map->length[code] == n && memcmp(map->text + map->start[code], label, (size_t)n) == 0;
}

/* The code of the label label[0 : n], added if new; -1 when out of memory or codes, or past MAX_PROBES slots. */
static int32_t label_code(LabelMap *map, const unsigned char *label, Py_ssize_t n) {
    if ((!map->slot || (size_t)map->count * 2 >= map->mask + 1) && label_map_grow(map) < 0) return -1;
    size_t at = bytes_hash(label, n) & map->mask;
    for (int probes = 0; map->slot[at]; at = (at + 1) & map->mask) {
        if (label_is(map, map->slot[at] - 1, label, n)) return map->slot[at] - 1;
        if (++probes == MAX_PROBES) return -1;
    }
    if (map->count == map->room) {
        Py_ssize_t room = map->room ? 2 * map->room : 64;
        Py_ssize_t *starts = realloc(map->start, (size_t)room * sizeof(Py_ssize_t));
        if (!starts) return -1;
        map->start = starts;
        Py_ssize_t *lengths = realloc(map->length, (size_t)room * sizeof(Py_ssize_t));
        if (!lengths) return -1;
        map->length = lengths;
        map->room = room;
    }
    if (map->text_used + (size_t)n > map->text_room) {
        size_t text_room = 2 * (map->text_room + (size_t)n) + 256;
        unsigned char *text = realloc(map->text, text_room);
        if (!text) return -1;
        map->text = text;
        map->text_room = text_room;
    }
    if (map->count >= INT32_MAX - 1) return -1;
    memcpy(map->text + map->text_used, label, (size_t)n);
    map->start[map->count] = (Py_ssize_t)map->text_used;
    map->length[map->count] = n;
    map->text_used += (size_t)n;
    map->slot[at] = (int32_t)(map->count + 1);
    return (int32_t)map->count++;
}

static void label_map_free(LabelMap *map) {
    free(map->text);
    free(map->start);
    free(map->length);
    free(map->slot);
}

/* Pages of a mapped file behind `upto` given back (they stay in the page cache; read again, they come back
 * from it), a few MB at a time: a run's mapping then never holds much of it in memory at once. */
#define RELEASE_STEP (4 << 20)

typedef struct {
    const unsigned char *data;  /* the first page of the mapping given back (page-aligned), or NULL: none is */
    Py_ssize_t released;        /* bytes from there given back so far */
} Behind;

/* Ready to give back the pages of a mapping that lie wholly at or after `data` (where `releasable`); none
 * otherwise. */
static Behind behind_from(const unsigned char *data, int releasable) {
    Behind behind = {NULL, 0};
#if defined(MADV_DONTNEED)
    long page = sysconf(_SC_PAGESIZE);
    if (releasable && page > 0) behind.data = data + (page - (Py_ssize_t)((uintptr_t)data % (uintptr_t)page)) % page;
#else
    (void)data;
    (void)releasable;
#endif
    return behind;
}

/* The pages wholly behind `at` given back, once RELEASE_STEP bytes more lie behind it. */
static void release_behind(Behind *behind, const unsigned char *at) {
#if defined(MADV_DONTNEED)
    if (!behind->data || (at - behind->data) - behind->released < RELEASE_STEP) return;
    Py_ssize_t page = (Py_ssize_t)sysconf(_SC_PAGESIZE);
    Py_ssize_t aligned = page > 0 ? (at - behind->data) / page * page : 0;
    if (aligned > behind->released) {
        madvise((void *)(behind->data + behind->released), (size_t)(aligned - behind->released), MADV_DONTNEED);
        behind->released = aligned;
    }
#else
    (void)behind;
    (void)at;
#endif
}

typedef struct {
    int32_t *topic;          /* the topic's code, per line */
    int32_t *docno_offsets;  /* (rows + 1) */
    unsigned char *docno_data;
    int64_t *rank;
    double *score;
    Py_ssize_t rows, docno_bytes;
    unsigned char *runtag;                   /* the first line's runtag (a copy) */
    Py_ssize_t runtag_length;
    int extra_fields;
    LabelMap topics;
} Split;

static inline int same_bytes(const unsigned char *a, const unsigned char *b, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++)
        if (a[i] != b[i]) return 0;
    return 1;
}

/* The first byte at or after p that is no ordinary byte (or end): eight bytes at a time while a byte
 * above the space is all there is (a byte of 0x21 or more is always ordinary), then byte by byte. */
static inline const unsigned char *field_end(const unsigned char *p, const unsigned char *end,
                                             const unsigned char *kind) {
    for (;;) {
#if defined(__GNUC__) || defined(__clang__)
        while (end - p >= 8) {
            const uint64_t ones = UINT64_C(0x0101010101010101), highs = UINT64_C(0x8080808080808080);
            uint64_t word = eight_bytes(p);
            /* A high bit for each byte below 0x21: exact for the first such byte (Mycroft's test). */
            uint64_t low = (word - 0x21 * ones) & ~word & highs;
            if (low) {
                p += __builtin_ctzll(low) / 8;
                break;
            }
            p += 8;
        }
#endif
        while (p < end && *p > 0x20) p++;  /* fewer than eight bytes left, or none below 0x21 in them */
        if (p == end || kind[*p] != ORDINARY) return p;
        p++;  /* a control byte: ordinary, look on */
    }
}

/* The kinds of bytes a line is split on: `separator` (a space or a tab) between fields, the newline after the
 * last; any other whitespace makes the kernel decline. */
static void byte_kinds(unsigned char kind[256], unsigned char separator) {
    memset(kind, ORDINARY, 256);
    kind[' '] = kind['\t'] = kind['\v'] = kind['\f'] = kind['\r'] = OTHER_SPACE;
    kind[separator] = SEPARATOR;
    kind['\n'] = NEWLINE;
}

/* The fields of the line at *p (its first `width` kept in field/length), *p moved past its newline; how many
 * fields it has, or -1 to decline (an empty field: a blank line, or separators side by side; other whitespace). */
static Py_ssize_t line_fields(const unsigned char **at, const unsigned char *end, const unsigned char *kind,
                              const unsigned char **field, Py_ssize_t *length, int width) {
    const unsigned char *p = *at;
    Py_ssize_t fields = 0;
    for (;;) {
        const unsigned char *start = p;
        p = field_end(p, end, kind);
        if (p == start) return -1;
        if (fields < width) {
            field[fields] = start;
            length[fields] = p - start;
        }
        fields++;
        if (p == end) break;
        if (kind[*p] == SEPARATOR) {
            p++;
            continue;
        }
        if (kind[*p] == NEWLINE) {
            p++;
            break;
        }
        return -1;
    }
    *at = p;
    return fields;
}

/* The code of a line's label in `map`, the line before's (*last) looked at first: files list a topic's lines
 * together. -1 when out of memory or codes. */
static inline int32_t line_code(LabelMap *map, int32_t *last, const unsigned char *label, Py_ssize_t n) {
    if (*last < 0 || map->length[*last] != n || !same_bytes(label, map->text + map->start[*last], n))
        *last = label_code(map, label, n);
    return *last;
}

/* A text appended to the buffers of an Arrow binary array (its offset at *offset, *bytes used so far); -1 when
 * the offsets would pass 32 bits. */
static inline int append_text(int32_t *offset, unsigned char *data, Py_ssize_t *bytes, const unsigned char *text,
                              Py_ssize_t n) {
    if (*bytes + n > INT32_MAX) return -1;
    *offset = (int32_t)*bytes;
    memcpy(data + *bytes, text, (size_t)n);
    *bytes += n;
    return 0;
}

/* Every line "topic Q0 docno rank score runtag[ more...]", fields separated by one `separator`, no other
 * whitespace, no empty line; 0 if so (filling `out`, rows at most `room`), -1 to decline. */
static int split_lines(const unsigned char *data, Py_ssize_t size, unsigned char separator, Py_ssize_t room,
                       Split *out, Behind *behind) {
    unsigned char kind[256];
    byte_kinds(kind, separator);
    const unsigned char *p = data, *end = data + size;
    Py_ssize_t rows = 0, bytes = 0;
    int32_t last_code = -1;
    while (p < end) {
        const unsigned char *field[WIDTH];
        Py_ssize_t length[WIDTH];
        if (rows == room) return -1;
        Py_ssize_t fields = line_fields(&p, end, kind, field, length, WIDTH);
        if (fields < WIDTH) return -1;
        if (fields > WIDTH) out->extra_fields = 1;
        if ((out->topic[rows] = line_code(&out->topics, &last_code, field[0], length[0])) < 0) return -1;
        if (append_text(out->docno_offsets + rows, out->docno_data, &bytes, field[2], length[2]) < 0) return -1;
        int64_t rank;
        if (read_integer(field[3], field[3] + length[3], &rank) < 0) return -1;
        out->rank[rows] = rank;
        if (read_real(field[4], field[4] + length[4], &out->score[rows]) < 0) return -1;
        if (rows == 0) {
            if (!(out->runtag = malloc((size_t)length[5]))) return -1;
            memcpy(out->runtag, field[5], (size_t)length[5]);
            out->runtag_length = length[5];
        }
        rows++;
        release_behind(behind, p);
    }
    out->docno_offsets[rows] = (int32_t)bytes;
    out->rows = rows;
    out->docno_bytes = bytes;
    return rows ? 0 : -1;
}

static Py_ssize_t count_newlines(const unsigned char *data, Py_ssize_t size, Behind *behind) {
    Py_ssize_t count = 0;
    const unsigned char *p = data, *end = data + size;
    while (p < end && (p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
        count++;
        p++;
        release_behind(behind, p);
    }
    return count;
}

/* The separator of the first line: the first space or tab in it; 0 if neither, or both, are there. */
static unsigned char first_separator(const unsigned char *p, Py_ssize_t size) {
    const unsigned char *end = memchr(p, '\n', (size_t)size);
    if (!end) end = p + size;
    const unsigned char *space = memchr(p, ' ', (size_t)(end - p)), *tab = memchr(p, '\t', (size_t)(end - p));
    if ((space == NULL) == (tab == NULL)) return 0;
    return space ? ' ' : '\t';
}

static PyObject *resized(PyObject *array, Py_ssize_t size) {
    if (PyByteArray_Resize(array, size) < 0) {
        Py_DECREF(array);
        return NULL;
    }
    return array;
}

/* The lines of a plain file's bytes (not empty; a last line without its newline counts), counted without the
 * GIL, with `behind` made ready to give the pages of a file's mapping back as the split reads them. Only a
 * read-only buffer that starts a page (a file's mapping, as InputFile.mapped makes it) is given back: a
 * copy-on-write or anonymous mapping would lose what was written in it. */
static Py_ssize_t counted_lines(const Py_buffer *input, int mapped, Behind *behind) {
    const unsigned char *data = input->buf;
    Py_ssize_t size = input->len, lines;
    *behind = behind_from(data, mapped && input->readonly && behind_from(data, 1).data == data);
    Py_BEGIN_ALLOW_THREADS
    lines = count_newlines(data, size, behind) + (data[size - 1] != '\n');
    Py_END_ALLOW_THREADS
    behind->released = 0;  /* (the split reads from the start again: pages come back from the page cache) */
    return lines;
}

/* The labels of `map` as a list of bytes, in code order; NULL with an exception set. */
static PyObject *label_list(const LabelMap *map) {
    PyObject *labels = PyList_New(map->count);
    if (!labels) return NULL;
    for (Py_ssize_t j = 0; j < map->count; j++) {
        PyObject *label = PyBytes_FromStringAndSize((const char *)map->text + map->start[j], map->length[j]);
        if (!label) {
            Py_DECREF(labels);
            return NULL;
        }
        PyList_SET_ITEM(labels, j, label);
    }
    return labels;
}

/* The separator of a file's first line, or 0 where the kernels decline the file at once: neither or both of a
 * space and a tab on it, a byte order mark, 2 GiB or more. */
static unsigned char plain_separator(const unsigned char *data, Py_ssize_t size) {
    if (!size || size >= INT32_MAX || (size >= 3 && memcmp(data, "\xef\xbb\xbf", 3) == 0)) return 0;
    return first_separator(data, size);
}

KERNEL_DOC(split_run_doc,
"split_run(data, mapped=False) -> tuple | None\n\n"
"A run file's bytes split into columns, or None where the file is not in the plain form this kernel\n"
"takes (then the Python reader decides). The tuple: (rows, topic codes int32, docno offsets int32,\n"
"docno bytes, ranks int64, scores float64 -- each a bytearray --, topic labels in first-seen order\n"
"(bytes), the first line's runtag (bytes), whether a line had fields past the sixth). mapped: data is a read-only mapping of a file, whose pages are given back as they are\n"
"read (the file is not changed; read again, they come back from the page cache).");

PyObject *split_run(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer input;
    int mapped = 0;
    if (!PyArg_ParseTuple(args, "y*|p:split_run", &input, &mapped)) return NULL;
    const unsigned char *data = input.buf;
    Py_ssize_t size = input.len;
    PyObject *topic = NULL, *offsets = NULL, *docnos = NULL, *ranks = NULL, *scores = NULL, *result = NULL;
    Split split;
    memset(&split, 0, sizeof split);
    unsigned char separator = plain_separator(data, size);
    if (!separator) goto decline;
    Behind behind;
    Py_ssize_t lines = counted_lines(&input, mapped, &behind);
    topic = PyByteArray_FromStringAndSize(NULL, lines * (Py_ssize_t)sizeof(int32_t));
    offsets = PyByteArray_FromStringAndSize(NULL, (lines + 1) * (Py_ssize_t)sizeof(int32_t));
    docnos = PyByteArray_FromStringAndSize(NULL, size);
    ranks = PyByteArray_FromStringAndSize(NULL, lines * (Py_ssize_t)sizeof(int64_t));
    scores = PyByteArray_FromStringAndSize(NULL, lines * (Py_ssize_t)sizeof(double));
    if (!topic || !offsets || !docnos || !ranks || !scores) goto fail;
    split.topic = (int32_t *)PyByteArray_AS_STRING(topic);
    split.docno_offsets = (int32_t *)PyByteArray_AS_STRING(offsets);
    split.docno_data = (unsigned char *)PyByteArray_AS_STRING(docnos);
    split.rank = (int64_t *)PyByteArray_AS_STRING(ranks);
    split.score = (double *)PyByteArray_AS_STRING(scores);
    int status;
    Py_BEGIN_ALLOW_THREADS
    status = split_lines(data, size, separator, lines, &split, &behind);
    Py_END_ALLOW_THREADS
    if (status < 0) goto decline;
    Py_ssize_t rows = split.rows;
    if (!(topic = resized(topic, rows * (Py_ssize_t)sizeof(int32_t)))) goto fail;
    if (!(offsets = resized(offsets, (rows + 1) * (Py_ssize_t)sizeof(int32_t)))) goto fail;
    if (!(docnos = resized(docnos, split.docno_bytes))) goto fail;
    if (!(ranks = resized(ranks, rows * (Py_ssize_t)sizeof(int64_t)))) goto fail;
    if (!(scores = resized(scores, rows * (Py_ssize_t)sizeof(double)))) goto fail;
    PyObject *labels = label_list(&split.topics);
    if (!labels) goto fail;
    result = Py_BuildValue("(nNNNNNNy#N)", rows, topic, offsets, docnos, ranks, scores, labels,
                           (const char *)split.runtag, split.runtag_length, PyBool_FromLong(split.extra_fields));
    topic = offsets = docnos = ranks = scores = NULL;  /* the tuple holds them (or they were let go) */
    goto done;
decline:
    result = Py_None;
    Py_INCREF(result);
    goto done;
fail:
    result = NULL;
done:
    Py_XDECREF(topic);
    Py_XDECREF(offsets);
    Py_XDECREF(docnos);
    Py_XDECREF(ranks);
    Py_XDECREF(scores);
    label_map_free(&split.topics);
    free(split.runtag);
    PyBuffer_Release(&input);
    return result;
}

/* -- splitting intentwise qrels ----------------------------------------------------------------------- */

#define QRELS_WIDTH 4      /* topic intent docno judgment */
#define LEVEL_LOW (-32768) /* the judgments qrels may hold (io/qrels.py's LEVEL_MIN, LEVEL_MAX) */
#define LEVEL_HIGH 32767

typedef struct {
    int32_t *topic, *intent, *docno;  /* each line's codes into the labels */
    int16_t *level;                   /* (within LEVEL_LOW .. LEVEL_HIGH: the qrels' own type) */
    Py_ssize_t rows;
    LabelMap topics, intents, docnos;
} QrelsSplit;

/* A judgment as the qrels reader reads one: [+-]?digits or L digits (an NTCIR level), within LEVEL_LOW ..
 * LEVEL_HIGH; 0 if read, -1 to decline (the reader then says what is wrong with it). */
static int read_level(const unsigned char *p, const unsigned char *end, int64_t *out) {
    int64_t value;
    if (p < end && *p == 'L') {
        if (++p == end || !is_digit(*p) || read_integer(p, end, &value) < 0) return -1;  /* (no sign after L) */
    } else if (read_integer(p, end, &value) < 0) {
        return -1;
    }
    if (value < LEVEL_LOW || value > LEVEL_HIGH) return -1;
    *out = value;
    return 0;
}

/* Every line "topic intent docno judgment", fields separated by one `separator`, no other whitespace, no
 * empty line, no fifth field; 0 if so (filling `out`, rows at most `room`), -1 to decline. */
static int split_qrels_lines(const unsigned char *data, Py_ssize_t size, unsigned char separator, Py_ssize_t room,
                             QrelsSplit *out, Behind *behind) {
    unsigned char kind[256];
    byte_kinds(kind, separator);
    const unsigned char *p = data, *end = data + size;
    Py_ssize_t rows = 0;
    int32_t last_topic = -1, last_intent = -1, last_docno = -1;
    while (p < end) {
        const unsigned char *field[QRELS_WIDTH];
        Py_ssize_t length[QRELS_WIDTH];
        if (rows == room) return -1;
        if (line_fields(&p, end, kind, field, length, QRELS_WIDTH) != QRELS_WIDTH) return -1;
        if ((out->topic[rows] = line_code(&out->topics, &last_topic, field[0], length[0])) < 0) return -1;
        if ((out->intent[rows] = line_code(&out->intents, &last_intent, field[1], length[1])) < 0) return -1;
        /* (a document's judgments, one per intent, mostly on consecutive lines: its code at once) */
        if ((out->docno[rows] = line_code(&out->docnos, &last_docno, field[2], length[2])) < 0) return -1;
        int64_t level;
        if (read_level(field[3], field[3] + length[3], &level) < 0) return -1;
        out->level[rows] = (int16_t)level;
        rows++;
        release_behind(behind, p);
    }
    out->rows = rows;
    return rows ? 0 : -1;
}

/* Qrels of this many bytes or more are split by two threads, a half each (where POSIX threads are there): the
 * benchmark's 70 MB take 0.2-0.3 s on one core, while the other has nothing to do yet. */
#define HALVES_FROM (8 << 20)

/* One half's share of the work: its bytes, its lines counted, then split into its own labels and its rows of
 * the columns (its codes into its own labels until merged). */
typedef struct {
    const unsigned char *data;
    Py_ssize_t size, lines;
    unsigned char separator;
    int status;
    Behind behind;
    QrelsSplit split;
} QrelsHalf;

static void *count_half(void *argument) {
    QrelsHalf *half = argument;
    half->lines = count_newlines(half->data, half->size, &half->behind) + (half->data[half->size - 1] != '\n');
    half->behind.released = 0;  /* (the split reads from the start again: pages come back from the page cache) */
    return NULL;
}

static void *split_half(void *argument) {
    QrelsHalf *half = argument;
    half->status = split_qrels_lines(half->data, half->size, half->separator, half->lines, &half->split,
                                     &half->behind);
    if (half->status == 0 && half->split.rows != half->lines) half->status = -1;  /* (not reached: a row a line) */
    return NULL;
}

/* work(half) for each of `count` halves (1 or 2), the second in a thread of its own where one can be made. */
static void for_each_half(void *(*work)(void *), QrelsHalf *halves, int count) {
#if defined(__unix__) || defined(__APPLE__)
    pthread_t thread;
    if (count == 2 && pthread_create(&thread, NULL, work, &halves[1]) == 0) {
        work(&halves[0]);
        pthread_join(thread, NULL);
        return;
    }
#endif
    for (int k = 0; k < count; k++) work(&halves[k]);
}

/* The second half's labels added to the first's (in the second's first-seen order, which follows the first's
 * in the file) and its rows' codes made codes of the merged labels: the split of one pass. 0; -1 to decline. */
static int merged_codes(LabelMap *into, const LabelMap *from, int32_t *codes, Py_ssize_t rows) {
    int32_t *code_of = malloc((size_t)(from->count ? from->count : 1) * sizeof(int32_t));
    if (!code_of) return -1;
    for (Py_ssize_t j = 0; j < from->count; j++) {
        if ((code_of[j] = label_code(into, from->text + from->start[j], from->length[j])) < 0) {
            free(code_of);
            return -1;
        }
    }
    for (Py_ssize_t r = 0; r < rows; r++) codes[r] = code_of[codes[r]];
    free(code_of);
    return 0;
}

/* Split `data` (plain qrels, separator `separator`) in one half or two (from `halves_from` bytes: a newline
 * near the middle ends the first), each half's lines counted and split without the GIL; the columns
 * allocated here for all the lines. 0 with `halves[0].split` holding the whole (labels merged, columns filled);
 * -1 to decline; -2 with an exception set. */
static int split_qrels_halves(const unsigned char *data, Py_ssize_t size, unsigned char separator, int mapped,
                              Py_ssize_t halves_from, QrelsHalf halves[2], PyObject *columns[4]) {
    int count = 1;
    halves[0].data = data;
    halves[0].size = size;
    if (size >= halves_from) {
        const unsigned char *middle = memchr(data + size / 2, '\n', (size_t)(size - size / 2));
        if (middle && middle + 1 < data + size) {
            count = 2;
            halves[0].size = middle + 1 - data;
            halves[1].data = middle + 1;
            halves[1].size = data + size - (middle + 1);
            /* (one separator for the file: a second half whose first line has the other one is declined, as
             * one pass declines the other whitespace on that line) */
            if (first_separator(halves[1].data, halves[1].size) != separator) return -1;
        }
    }
    for (int k = 0; k < count; k++) {
        halves[k].separator = separator;
        halves[k].behind = behind_from(halves[k].data, mapped);
    }
    Py_BEGIN_ALLOW_THREADS
    for_each_half(count_half, halves, count);
    Py_END_ALLOW_THREADS
    Py_ssize_t lines = halves[0].lines + (count == 2 ? halves[1].lines : 0);
    const Py_ssize_t widths[4] = {sizeof(int32_t), sizeof(int32_t), sizeof(int32_t), sizeof(int16_t)};
    for (int c = 0; c < 4; c++)
        if (!(columns[c] = PyByteArray_FromStringAndSize(NULL, lines * widths[c]))) return -2;
    Py_ssize_t first_row = 0;
    for (int k = 0; k < count; k++) {
        halves[k].split.topic = (int32_t *)PyByteArray_AS_STRING(columns[0]) + first_row;
        halves[k].split.intent = (int32_t *)PyByteArray_AS_STRING(columns[1]) + first_row;
        halves[k].split.docno = (int32_t *)PyByteArray_AS_STRING(columns[2]) + first_row;
        halves[k].split.level = (int16_t *)PyByteArray_AS_STRING(columns[3]) + first_row;
        first_row += halves[k].lines;
    }
    int status = 0;
    Py_BEGIN_ALLOW_THREADS
    for_each_half(split_half, halves, count);
    for (int k = 0; k < count; k++)
        if (halves[k].status < 0) status = -1;
    if (status == 0 && count == 2) {
        QrelsSplit *whole = &halves[0].split, *second = &halves[1].split;
        if (merged_codes(&whole->topics, &second->topics, second->topic, second->rows) < 0 ||
            merged_codes(&whole->intents, &second->intents, second->intent, second->rows) < 0 ||
            merged_codes(&whole->docnos, &second->docnos, second->docno, second->rows) < 0)
            status = -1;
        whole->rows += second->rows;
    }
    Py_END_ALLOW_THREADS
    return status;
}

/* The labels of `map` as the buffers of an Arrow binary array, offsets (int32) and bytes, in code order: 0; -1
 * with an exception set; 1 to decline (labels of 2 GiB or more). */
static int label_buffers(const LabelMap *map, PyObject **offsets, PyObject **bytes) {
    if (map->text_used >= INT32_MAX) return 1;
    *offsets = PyByteArray_FromStringAndSize(NULL, (map->count + 1) * (Py_ssize_t)sizeof(int32_t));
    *bytes = PyByteArray_FromStringAndSize((const char *)map->text, (Py_ssize_t)map->text_used);
    if (!*offsets || !*bytes) return -1;
    int32_t *offset = (int32_t *)PyByteArray_AS_STRING(*offsets);
    for (Py_ssize_t j = 0; j < map->count; j++) offset[j] = (int32_t)map->start[j];  /* (the texts lie in code order) */
    offset[map->count] = (int32_t)map->text_used;
    return 0;
}

KERNEL_DOC(split_qrels_doc,
"split_qrels(data, mapped=False, halves_from=-1) -> tuple | None\n\n"
"Intentwise qrels' bytes split into columns, or None where the file is not in the plain form this kernel\n"
"takes (then the Python reader reads it, and names the line of any problem). The tuple: (rows, topic codes\n"
"int32, intent codes int32, docno codes int32, judgments int16, the docnos in first-seen order as the offsets\n"
"(int32) and bytes of an Arrow binary array -- each a bytearray --, topic labels and intent labels in\n"
"first-seen order (bytes)). mapped: as split_run's. From halves_from bytes (-1: 8 MB) the data are split by\n"
"two threads, a half each, into the same tuple.");

PyObject *split_qrels(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer input;
    int mapped = 0;
    Py_ssize_t halves_from = -1;
    if (!PyArg_ParseTuple(args, "y*|pn:split_qrels", &input, &mapped, &halves_from)) return NULL;
    PyObject *columns[4] = {NULL, NULL, NULL, NULL}, *offsets = NULL, *texts = NULL;
    PyObject *topic_labels = NULL, *intent_labels = NULL, *result = NULL;
    QrelsHalf halves[2];
    memset(halves, 0, sizeof halves);
    unsigned char separator = plain_separator(input.buf, input.len);
    if (!separator) goto decline;
    int status = split_qrels_halves(input.buf, input.len, separator, mapped && input.readonly,
                                    halves_from < 0 ? HALVES_FROM : halves_from, halves, columns);
    if (status == -2) goto fail;
    if (status < 0) goto decline;
    QrelsSplit *split = &halves[0].split;
    Py_ssize_t rows = split->rows;
    if ((status = label_buffers(&split->docnos, &offsets, &texts)) != 0) {
        if (status < 0) goto fail;
        goto decline;
    }
    if (!(topic_labels = label_list(&split->topics)) || !(intent_labels = label_list(&split->intents))) goto fail;
    result = Py_BuildValue("(nNNNNNNNN)", rows, columns[0], columns[1], columns[2], columns[3], offsets, texts,
                           topic_labels, intent_labels);
    columns[0] = columns[1] = columns[2] = columns[3] = NULL;  /* the tuple holds them */
    offsets = texts = topic_labels = intent_labels = NULL;
    goto done;
decline:
    result = Py_None;
    Py_INCREF(result);
    goto done;
fail:
    result = NULL;
done:
    for (int c = 0; c < 4; c++) Py_XDECREF(columns[c]);
    Py_XDECREF(offsets);
    Py_XDECREF(texts);
    Py_XDECREF(topic_labels);
    Py_XDECREF(intent_labels);
    for (int k = 0; k < 2; k++) {
        label_map_free(&halves[k].split.topics);
        label_map_free(&halves[k].split.intents);
        label_map_free(&halves[k].split.docnos);
    }
    PyBuffer_Release(&input);
    return result;
}

/* strtod's locale, made once when the module is imported. */
void parse_init(void) {
#ifdef HAVE_STRTOD_L
    if (c_locale == (locale_t)0) c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
#endif
}
