/* Compiled kernels of divaleval: splitting a run file and matching its docnos to the judgments (the per-run
 * path), printing numbers, and the NCU family's masked row sums, blended ratios and P+.
 *
 * Each stands in for a numpy or Arrow path (divaleval/io/table.py, divaleval/model/text_keys.py,
 * divaleval/output/formatting.py, divaleval/measures/ncu/kernels.py) and either gives exactly what that
 * path gives, bit for bit, or declines (returns None) and leaves the input to it. So a kernel takes only
 * the plain case and declines anything unusual (another whitespace byte, an empty field, a number it cannot
 * read exactly, keys that share hashes), and the Python path, which names the line of any problem, decides.
 * The heavy loops run without the GIL. tests/test_native_kernels.py holds every kernel to its twin.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__unix__) || defined(__APPLE__)
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

static inline uint64_t little_endian(uint64_t word) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return __builtin_bswap64(word);
#else
    return word;
#endif
}

/* Whether a buffer of len bytes holds exactly rows x width items of item bytes (no product overflowing). */
static int holds(Py_ssize_t len, Py_ssize_t rows, Py_ssize_t width, Py_ssize_t item) {
    if (rows < 0 || width < 0 || (width && rows > PY_SSIZE_T_MAX / width / item)) return 0;
    return len == rows * width * item;
}

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

/* A plain decimal real, [+-]?(digits[.digits*]|.digits)([eE][+-]?digits)?, correctly rounded (as Arrow's
 * parser and C's strtod round); 0 if read, -1 to decline (inf, nan, hexadecimal, out of range). */
static int read_real(const unsigned char *start, const unsigned char *end, double *out) {
    const unsigned char *p = start;
    int negative = 0, digits = 0, any = 0, long_mantissa = 0;
    uint64_t mantissa = 0;
    long exponent = 0;
    if (p < end && (*p == '+' || *p == '-')) {
        negative = *p == '-';
        p++;
    }
    for (; p < end && is_digit(*p); p++) {
        any = 1;
        if (mantissa == 0 && *p == '0') continue;  /* a leading zero */
        if (digits < REAL_DIGITS) {
            mantissa = mantissa * 10 + (*p - '0');
            digits++;
        } else {
            long_mantissa = 1;
        }
    }
    if (p < end && *p == '.') {
        for (p++; p < end && is_digit(*p); p++) {
            any = 1;
            if (mantissa == 0 && *p == '0') {
                exponent--;
                continue;
            }
            if (digits < REAL_DIGITS) {
                mantissa = mantissa * 10 + (*p - '0');
                digits++;
                exponent--;
            } else {
                long_mantissa = 1;
            }
        }
    }
    if (!any) return -1;
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

/* The distinct topics of a run, in first-seen order, their bytes copied (so that nothing behind the line
 * being read is looked at again), found by an open-addressing map. */
typedef struct {
    unsigned char *text;         /* label j: text[start[j] : start[j] + length[j]] */
    size_t text_used, text_room;
    Py_ssize_t *start, *length;
    Py_ssize_t count, room;
    int32_t *slot;               /* code + 1 of the label in each slot, 0 when empty */
    size_t mask;
} TopicMap;

static uint64_t bytes_hash(const unsigned char *p, Py_ssize_t n) {
    uint64_t h = UINT64_C(1469598103934665603);  /* FNV-1a */
    for (Py_ssize_t i = 0; i < n; i++) h = (h ^ p[i]) * UINT64_C(1099511628211);
    return h ^ (h >> 29);
}

static int topic_map_grow(TopicMap *map) {
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

static inline int topic_is(const TopicMap *map, int32_t code, const unsigned char *label, Py_ssize_t n) {
    return map->length[code] == n && memcmp(map->text + map->start[code], label, (size_t)n) == 0;
}

/* The code of the topic label[0 : n], added if new; -1 when out of memory or codes. */
static int32_t topic_code(TopicMap *map, const unsigned char *label, Py_ssize_t n) {
    if ((!map->slot || (size_t)map->count * 2 >= map->mask + 1) && topic_map_grow(map) < 0) return -1;
    size_t at = bytes_hash(label, n) & map->mask;
    for (; map->slot[at]; at = (at + 1) & map->mask)
        if (topic_is(map, map->slot[at] - 1, label, n)) return map->slot[at] - 1;
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

static void topic_map_free(TopicMap *map) {
    free(map->text);
    free(map->start);
    free(map->length);
    free(map->slot);
}

/* Pages of a mapped file behind `upto` given back (they stay in the page cache; read again, they come back
 * from it), a few MB at a time: a run's mapping then never holds much of it in memory at once. */
#define RELEASE_STEP (4 << 20)

typedef struct {
    const unsigned char *data;  /* the mapping (page-aligned), or NULL: nothing is given back */
    Py_ssize_t released;        /* bytes of it given back so far */
} Behind;

static int page_aligned(const unsigned char *data) {
#if defined(MADV_DONTNEED)
    long page = sysconf(_SC_PAGESIZE);
    return page > 0 && (uintptr_t)data % (uintptr_t)page == 0;
#else
    (void)data;
    return 0;
#endif
}

static void release_behind(Behind *behind, Py_ssize_t upto) {
#if defined(MADV_DONTNEED)
    if (!behind->data || upto - behind->released < RELEASE_STEP) return;
    Py_ssize_t page = (Py_ssize_t)sysconf(_SC_PAGESIZE);
    Py_ssize_t aligned = page > 0 ? upto / page * page : 0;
    if (aligned > behind->released) {
        madvise((void *)(behind->data + behind->released), (size_t)(aligned - behind->released), MADV_DONTNEED);
        behind->released = aligned;
    }
#else
    (void)behind;
    (void)upto;
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
    TopicMap topics;
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
            uint64_t word;
            memcpy(&word, p, 8);
            word = little_endian(word);
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

/* Every line "topic Q0 docno rank score runtag[ more...]", fields separated by one `separator`, no other
 * whitespace, no empty line; 0 if so (filling `out`, rows at most `room`), -1 to decline. */
static int split_lines(const unsigned char *data, Py_ssize_t size, unsigned char separator, Py_ssize_t room,
                       Split *out, Behind *behind) {
    unsigned char kind[256] = {0};
    kind[' '] = kind['\t'] = kind['\v'] = kind['\f'] = kind['\r'] = OTHER_SPACE;
    kind[separator] = SEPARATOR;
    kind['\n'] = NEWLINE;
    const unsigned char *p = data, *end = data + size;
    Py_ssize_t rows = 0, bytes = 0;
    int32_t last_code = -1;
    while (p < end) {
        const unsigned char *field[WIDTH];
        Py_ssize_t length[WIDTH];
        int fields = 0;
        if (rows == room) return -1;
        for (;;) {
            const unsigned char *start = p;
            p = field_end(p, end, kind);
            if (p == start) return -1;  /* an empty field: a blank line, or separators side by side */
            if (fields < WIDTH) {
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
            return -1;  /* other whitespace */
        }
        if (fields < WIDTH) return -1;
        if (fields > WIDTH) out->extra_fields = 1;
        if (last_code < 0 || out->topics.length[last_code] != length[0] ||
            !same_bytes(field[0], out->topics.text + out->topics.start[last_code], length[0])) {
            last_code = topic_code(&out->topics, field[0], length[0]);
            if (last_code < 0) return -1;
        }
        out->topic[rows] = last_code;
        if (bytes + length[2] > INT32_MAX) return -1;
        out->docno_offsets[rows] = (int32_t)bytes;
        memcpy(out->docno_data + bytes, field[2], (size_t)length[2]);
        bytes += length[2];
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
        release_behind(behind, p - data);
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
        release_behind(behind, p - data);
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

PyDoc_STRVAR(split_run_doc,
"split_run(data, mapped=False) -> tuple | None\n\n"
"A run file's bytes split into columns, or None where the file is not in the plain form this kernel\n"
"takes (then the Python reader decides). The tuple: (rows, topic codes int32, docno offsets int32,\n"
"docno bytes, ranks int64, scores float64 -- each a bytearray --, topic labels in first-seen order\n"
"(bytes), the first line's runtag (bytes), whether a line had fields past the sixth). mapped: data is a read-only mapping of a file, whose pages are given back as they are\n"
"read (the file is not changed; read again, they come back from the page cache).");

static PyObject *split_run(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer input;
    int mapped = 0;
    if (!PyArg_ParseTuple(args, "y*|p:split_run", &input, &mapped)) return NULL;
    const unsigned char *data = input.buf;
    Py_ssize_t size = input.len;
    PyObject *topic = NULL, *offsets = NULL, *docnos = NULL, *ranks = NULL, *scores = NULL, *result = NULL;
    Split split;
    memset(&split, 0, sizeof split);
    unsigned char separator = size ? first_separator(data, size) : 0;
    if (!separator || size >= INT32_MAX || (size >= 3 && memcmp(data, "\xef\xbb\xbf", 3) == 0)) goto decline;
    Py_ssize_t lines;
    /* Only a read-only buffer that starts a page (a file's mapping, as InputFile.mapped makes it) is given
     * back: a copy-on-write or anonymous mapping would lose what was written in it. */
    Behind behind = {mapped && input.readonly && page_aligned(data) ? data : NULL, 0};
    Py_BEGIN_ALLOW_THREADS
    lines = count_newlines(data, size, &behind) + (data[size - 1] != '\n');
    Py_END_ALLOW_THREADS
    behind.released = 0;
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
    PyObject *labels = PyList_New(split.topics.count);
    if (!labels) goto fail;
    for (Py_ssize_t j = 0; j < split.topics.count; j++) {
        PyObject *label = PyBytes_FromStringAndSize((const char *)split.topics.text + split.topics.start[j],
                                                    split.topics.length[j]);
        if (!label) {
            Py_DECREF(labels);
            goto fail;
        }
        PyList_SET_ITEM(labels, j, label);
    }
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
    topic_map_free(&split.topics);
    free(split.runtag);
    PyBuffer_Release(&input);
    return result;
}

/* -- matching (group, text) keys ------------------------------------------------------------------------
 * The keys and hashes of divaleval/model/text_keys.py, bit for bit: a text of n bytes is its words (8 bytes
 * each, little-endian, read at offsets 0, 8, ... and n - 8 for the last; a text shorter than 8 bytes is one
 * zero-padded word), and its hash mixes the group, the length and every word. Lines are taken a batch at a
 * time, the memory each will read asked for ahead (the table's slots and keys are larger than the caches). */

#define MAX_ROUNDS 64  /* probes of a table before a lookup declines (keys made to share hashes) */
#define BATCH 32       /* lines hashed, then looked up, together */
#define EMPTY_SLOT UINT64_MAX
#define LOW_HALF UINT64_C(0xFFFFFFFF)

#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(address) __builtin_prefetch(address)
#else
#define PREFETCH(address) ((void)0)
#endif

static inline uint64_t text_word(const unsigned char *text, int64_t n, int64_t j) {
    uint64_t word = 0;
    if (n >= 8) {
        memcpy(&word, text + (8 * j <= n - 8 ? 8 * j : n - 8), 8);
        return little_endian(word);
    }
    for (int64_t i = 0; i < n; i++) word |= (uint64_t)text[i] << (8 * i);
    return word;
}

static inline uint64_t key_hash(const unsigned char *text, int64_t n, int32_t group) {
    uint64_t h = (uint64_t)(int64_t)group * UINT64_C(0xD6E8FEB86659FD93) + (uint64_t)n * UINT64_C(0x9E3779B97F4A7C15);
    for (int64_t j = 0; 8 * j < n; j++) {
        uint64_t term = text_word(text, n, j) * (((uint64_t)(2 * j + 3) * UINT64_C(0x632BE59BD9B4E019)) | 1);
        h += term ^ (term >> 29);
    }
    h ^= h >> 33;
    h *= UINT64_C(0xFF51AFD7ED558CCD);
    h ^= h >> 33;
    h *= UINT64_C(0xC4CEB9FE1A85EC53);
    h ^= h >> 33;
    return h;
}

/* The qrels' table of judged keys: its slots (position << 32 | low half of the hash, all ones when empty)
 * and one row of `width` words per key: (length << 32 | group), then the key's words. */
typedef struct {
    const uint64_t *slots;
    int shift;
    size_t mask;
    const uint64_t *rows;
    Py_ssize_t keys, width;
} Table;

static inline uint64_t key_head(int64_t n, int32_t group) { return ((uint64_t)n << 32) | (uint32_t)group; }

static inline int row_holds(const Table *table, int64_t position, const unsigned char *text, int64_t n, uint64_t head) {
    const uint64_t *row = table->rows + position * table->width;
    if (row[0] != head) return 0;
    for (int64_t j = 0; 8 * j < n; j++)
        if (row[1 + j] != text_word(text, n, j)) return 0;
    return 1;
}

/* The position of a key in the table, -1 if absent, -2 past MAX_ROUNDS probes. */
static int64_t table_find(const Table *table, const unsigned char *text, int64_t n, uint64_t head, uint64_t hash) {
    size_t slot = (size_t)(hash >> table->shift);
    uint64_t wanted = hash & LOW_HALF;
    for (int round = 0; round < MAX_ROUNDS; round++, slot = (slot + 1) & table->mask) {
        uint64_t held = table->slots[slot];
        if (held == EMPTY_SLOT) return -1;
        int64_t position = (int64_t)(held >> 32);
        if (position >= table->keys) return -2;  /* not a table this kernel can read: numpy's path decides */
        if ((held & LOW_HALF) == wanted && row_holds(table, position, text, n, head)) return position;
    }
    return -2;
}

/* The lines' keys seen so far, for repeats: keys the table holds are marked by their position in it, the
 * others kept in an open-addressing set of (high half of the hash << 32 | line + 1). */
typedef struct {
    unsigned char *judged;  /* per table position: seen */
    uint64_t *slots;
    size_t mask;
    int shift;
} Seen;

/* Whether line i's key (not in the table) was seen before (else it is added); -1 past MAX_ROUNDS probes. */
static int seen_before(Seen *seen, Py_ssize_t i, uint64_t hash, const int32_t *group, const int32_t *offsets,
                       const unsigned char *data) {
    size_t slot = (size_t)(hash >> seen->shift) & seen->mask;
    uint64_t high = hash >> 32;
    for (int round = 0; round < MAX_ROUNDS; round++, slot = (slot + 1) & seen->mask) {
        uint64_t held = seen->slots[slot];
        if (!held) {
            seen->slots[slot] = (high << 32) | (uint64_t)(i + 1);
            return 0;
        }
        if ((held >> 32) != high) continue;
        Py_ssize_t other = (Py_ssize_t)(held & LOW_HALF) - 1;
        int64_t n = offsets[i + 1] - offsets[i];
        if (group[other] == group[i] && offsets[other + 1] - offsets[other] == n &&
            memcmp(data + offsets[other], data + offsets[i], (size_t)n) == 0)
            return 1;
    }
    return -1;
}

/* Every line's position in the table (into found, 32- or 64-bit) and the lines repeating an earlier key
 * (into repeats, ascending; their count returned); -1 to decline. */
static Py_ssize_t match_lines(const Table *table, const int32_t *group, const int32_t *offsets,
                              const unsigned char *data, Py_ssize_t n, void *found, int found_size, Seen *seen,
                              Py_ssize_t *repeats) {
    uint64_t hash[BATCH];
    int64_t position[BATCH];
    Py_ssize_t count = 0;
    for (Py_ssize_t start = 0; start < n; start += BATCH) {
        int m = (int)(n - start < BATCH ? n - start : BATCH);
        for (int b = 0; b < m; b++) {
            Py_ssize_t i = start + b;
            hash[b] = key_hash(data + offsets[i], offsets[i + 1] - offsets[i], group[i]);
            if (table) PREFETCH(table->slots + (hash[b] >> table->shift));
            PREFETCH(seen->slots + ((hash[b] >> seen->shift) & seen->mask));
        }
        if (table) {
            for (int b = 0; b < m; b++) {  /* the row a key's first slot names */
                uint64_t held = table->slots[hash[b] >> table->shift];
                if (held != EMPTY_SLOT) PREFETCH(table->rows + (held >> 32) * table->width);
            }
        }
        for (int b = 0; b < m; b++) {
            Py_ssize_t i = start + b;
            int64_t n_i = offsets[i + 1] - offsets[i];
            position[b] = table ? table_find(table, data + offsets[i], n_i, key_head(n_i, group[i]), hash[b]) : -1;
            if (position[b] == -2) return -1;
            int repeat;
            if (position[b] >= 0) {
                if (found_size == 4)
                    ((int32_t *)found)[i] = (int32_t)position[b];
                else
                    ((int64_t *)found)[i] = position[b];
                repeat = seen->judged[position[b]];
                seen->judged[position[b]] = 1;
            } else {
                repeat = seen_before(seen, i, hash[b], group, offsets, data);
                if (repeat < 0) return -1;
            }
            if (repeat) repeats[count++] = i;
        }
    }
    return count;
}

PyDoc_STRVAR(match_keys_doc,
"match_keys(group, offsets, data, found, table) -> list | None\n\n"
"For the keys (group[i], data[offsets[i]:offsets[i + 1]]) (group int32, offsets int32): writes each\n"
"key's position in the table into found (int32 or int64; left as it is where the table lacks it, or\n"
"when table is None) and returns the positions of the keys equal to an earlier one, ascending; None\n"
"where keys share hashes too often (then the numpy path decides). table: (slots uint64, shift, rows\n"
"uint64 (keys, width) in C order: (length << 32 | group) and the key's words).");

static PyObject *match_keys(PyObject *self, PyObject *args) {
    Py_buffer group_buffer, offsets_buffer, data_buffer, found_buffer;
    PyObject *table_arg;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*y*y*w*O:match_keys", &group_buffer, &offsets_buffer, &data_buffer,
                          &found_buffer, &table_arg))
        return NULL;
    Py_buffer slots_buffer = {0}, rows_buffer = {0};
    Table table = {0};
    Seen seen = {0};
    Py_ssize_t *repeats = NULL;
    PyObject *result = NULL;
    Py_ssize_t n = group_buffer.len / (Py_ssize_t)sizeof(int32_t);
    int found_size = 4;
    if (table_arg != Py_None) {
        Py_ssize_t width;
        if (!PyArg_ParseTuple(table_arg, "y*iy*n:match_keys table", &slots_buffer, &table.shift, &rows_buffer, &width))
            goto release;
        table.slots = slots_buffer.buf;
        table.mask = (size_t)(slots_buffer.len / 8) - 1;
        table.rows = rows_buffer.buf;
        table.width = width;
        table.keys = width > 0 ? rows_buffer.len / 8 / width : 0;
        size_t slots = (size_t)(slots_buffer.len / 8);
        if (width < 1 || rows_buffer.len != 8 * width * table.keys || slots < 1 || (slots & (slots - 1)) ||
            table.shift < 1 || table.shift > 63 || (UINT64_C(1) << (64 - table.shift)) != slots) {
            PyErr_SetString(PyExc_ValueError, "match_keys: a table of the wrong shape");
            goto release;
        }
    }
    if (n) found_size = (int)(found_buffer.len / n);
    if (offsets_buffer.len != (n + 1) * (Py_ssize_t)sizeof(int32_t) || found_buffer.len != n * found_size ||
        (found_size != 4 && found_size != 8)) {
        PyErr_SetString(PyExc_ValueError, "match_keys: arrays of different lengths");
        goto release;
    }
    size_t set_size = 16;
    while (set_size < 2 * (size_t)n) set_size *= 2;
    seen.mask = set_size - 1;
    seen.shift = 64;
    for (size_t s = set_size; s > 1; s /= 2) seen.shift--;
    seen.slots = calloc(set_size, sizeof(uint64_t));
    seen.judged = calloc((size_t)table.keys + 1, 1);
    repeats = malloc((size_t)(n ? n : 1) * sizeof(Py_ssize_t));
    if (!seen.slots || !seen.judged || !repeats) {
        PyErr_NoMemory();
        goto release;
    }
    if (n >= INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "match_keys: too many keys");
        goto release;
    }
    const int32_t *offsets = offsets_buffer.buf;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (offsets[i] < 0 || offsets[i] > offsets[i + 1] || offsets[i + 1] > data_buffer.len) {
            PyErr_SetString(PyExc_ValueError, "match_keys: offsets out of order or past the data");
            goto release;
        }
    }
    Py_ssize_t count;
    Py_BEGIN_ALLOW_THREADS
    count = match_lines(table_arg != Py_None ? &table : NULL, group_buffer.buf, offsets_buffer.buf,
                        data_buffer.buf, n, found_buffer.buf, found_size, &seen, repeats);
    Py_END_ALLOW_THREADS
    if (count < 0) {
        result = Py_None;
        Py_INCREF(result);
        goto release;
    }
    result = PyList_New(count);
    if (!result) goto release;
    for (Py_ssize_t j = 0; j < count; j++) {
        PyObject *line = PyLong_FromSsize_t(repeats[j]);
        if (!line) {
            Py_CLEAR(result);
            goto release;
        }
        PyList_SET_ITEM(result, j, line);
    }
release:
    free(seen.slots);
    free(seen.judged);
    free(repeats);
    if (slots_buffer.obj) PyBuffer_Release(&slots_buffer);
    if (rows_buffer.obj) PyBuffer_Release(&rows_buffer);
    PyBuffer_Release(&group_buffer);
    PyBuffer_Release(&offsets_buffer);
    PyBuffer_Release(&data_buffer);
    PyBuffer_Release(&found_buffer);
    return result;
}

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

PyDoc_STRVAR(fixed_rows_doc,
"fixed_rows(matrix, rows, columns, digits, separator) -> list | None\n\n"
"Each row of a (rows, columns) float64 matrix in C order as its values printed by printf(\"%.<digits>f\")\n"
"(NaN as -nan), joined by the one-character separator: a list of str; None where this kernel does not\n"
"print such numbers (more than 9 digits, a value beyond 2^93) or such a separator (beyond ASCII).");

static PyObject *fixed_rows(PyObject *self, PyObject *args) {
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

/* -- row sums of masked values ------------------------------------------------------------------------
 * np.where(mask, values, 0.0).sum(axis=1) without the array between: each row's kept values (0.0 where the
 * mask is off) summed as numpy sums a contiguous row of doubles, 0.0 plus its pairwise sum (eight
 * interleaved partial sums over blocks of at most 128, halves of longer rows summed apart). The Python side
 * probes once that this numpy sums so, and else never calls it. */

#define PAIRWISE_BLOCK 128

static double pairwise_sum(const double *a, Py_ssize_t n) {
    if (n < 8) {
        double sum = 0.0;
        for (Py_ssize_t i = 0; i < n; i++) sum += a[i];
        return sum;
    }
    if (n <= PAIRWISE_BLOCK) {
        double r[8];
        Py_ssize_t i;
        for (int j = 0; j < 8; j++) r[j] = a[j];
        for (i = 8; i < n - (n % 8); i += 8)
            for (int j = 0; j < 8; j++) r[j] += a[i + j];
        double sum = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; i++) sum += a[i];
        return sum;
    }
    Py_ssize_t half = n / 2;
    half -= half % 8;
    return pairwise_sum(a, half) + pairwise_sum(a + half, n - half);
}

/* A scratch row of n doubles (room for one at least), or NULL with MemoryError set. */
static double *scratch_row(Py_ssize_t n) {
    double *row = malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
    if (!row) PyErr_NoMemory();
    return row;
}

PyDoc_STRVAR(masked_row_sums_doc,
"masked_row_sums(values, values_width, mask, mask_width, columns, out)\n\n"
"out[r] = np.where(mask[r, :columns], values[r, :columns], 0.0).sum() for every row r: values float64\n"
"(rows, values_width) and mask bool (rows, mask_width), both in C order, out float64 (rows,). Returns True.\n"
"(A row holding NaNs of both signs may sum to a NaN of the other sign than numpy's.)");

static PyObject *masked_row_sums(PyObject *self, PyObject *args) {
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

PyDoc_STRVAR(p_plus_parts_doc,
"p_plus_parts(gains, within, ratio, width, columns, total, count, any)\n\n"
"P+'s parts over the first `columns` columns of (rows, width) arrays in C order (gains and ratio float64,\n"
"within bool): the first column holding a row's largest gain among its `within` entries (its preferred\n"
"rank), then total[r] = np.where(upto, ratio, 0.0).sum() and count[r] (int64) the entries `within` up to\n"
"that column, any[r] (bool) whether the row has an entry `within`; the sum as masked_row_sums sums.\n"
"Returns True.");

static PyObject *p_plus_parts(PyObject *self, PyObject *args) {
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
    for (Py_ssize_t r = 0; r < rows; r++) {
        const double *g = (const double *)gains.buf + r * width, *b = (const double *)ratio.buf + r * width;
        const unsigned char *w = (const unsigned char *)within.buf + r * width;
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
        ((double *)total.buf)[r] = 0.0 + pairwise_sum(row, columns);
        ((int64_t *)count.buf)[r] = kept;
        ((unsigned char *)any.buf)[r] = preferred >= 0;
    }
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

PyDoc_STRVAR(blended_ratio_doc,
"blended_ratio(gains, position, ideal, rows, width, ideal_width, beta, out)\n\n"
"BR(r) = (C(r) + beta cg(r)) / (r + beta cg*(min(r, L))) at every entry of (rows, width) arrays in C order\n"
"(gains float64, position int64, out float64; ideal float64 (rows, L = ideal_width)): C and cg the running\n"
"count and sum of the row's gains (> 0), cg* the running sum of its ideal gains (0 where L is 0), each\n"
"summed in order as np.cumsum sums, and every operation numpy's (built without fused multiply-adds).\n"
"Returns True, or None (declines) for a position numpy would not index by.");

static PyObject *blended_ratio(PyObject *self, PyObject *args) {
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

static PyMethodDef methods[] = {
    {"split_run", split_run, METH_VARARGS, split_run_doc},
    {"match_keys", match_keys, METH_VARARGS, match_keys_doc},
    {"fixed_rows", fixed_rows, METH_VARARGS, fixed_rows_doc},
    {"masked_row_sums", masked_row_sums, METH_VARARGS, masked_row_sums_doc},
    {"p_plus_parts", p_plus_parts, METH_VARARGS, p_plus_parts_doc},
    {"blended_ratio", blended_ratio, METH_VARARGS, blended_ratio_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_kernels", "Compiled kernels for the per-run path (see divaleval/native).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__kernels(void) {
#ifdef HAVE_STRTOD_L
    if (c_locale == (locale_t)0) c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
#endif
    return PyModule_Create(&module);
}
