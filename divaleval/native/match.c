#include "kernels.h"

#include <stdlib.h>
#include <string.h>

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

KERNEL_DOC(match_keys_doc,
"match_keys(group, offsets, data, found, table) -> list | None\n\n"
"For the keys (group[i], data[offsets[i]:offsets[i + 1]]) (group int32, offsets int32): writes each\n"
"key's position in the table into found (int32 or int64; left as it is where the table lacks it, or\n"
"when table is None) and returns the positions of the keys equal to an earlier one, ascending; None\n"
"where keys share hashes too often (then the numpy path decides). table: (slots uint64, shift, rows\n"
"uint64 (keys, width) in C order: (length << 32 | group) and the key's words).");

PyObject *match_keys(PyObject *self, PyObject *args) {
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
    if (n >= INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "match_keys: too many keys");
        goto release;
    }
    /* The checks, the set's memory (calloc clears it: megabytes a run) and the matching, all without the GIL. */
    Py_ssize_t count;
    int problem = 0;  /* 1: offsets out of order or past the data; 2: no memory */
    Py_BEGIN_ALLOW_THREADS
    const int32_t *offsets = offsets_buffer.buf;
    for (Py_ssize_t i = 0; i < n && !problem; i++)
        if (offsets[i] < 0 || offsets[i] > offsets[i + 1] || offsets[i + 1] > data_buffer.len) problem = 1;
    if (!problem) {
        size_t set_size = 16;
        while (set_size < 2 * (size_t)n) set_size *= 2;
        seen.mask = set_size - 1;
        seen.shift = 64;
        for (size_t s = set_size; s > 1; s /= 2) seen.shift--;
        seen.slots = calloc(set_size, sizeof(uint64_t));
        seen.judged = calloc((size_t)table.keys + 1, 1);
        repeats = malloc((size_t)(n ? n : 1) * sizeof(Py_ssize_t));
        if (!seen.slots || !seen.judged || !repeats) problem = 2;
    }
    count = problem ? 0 : match_lines(table_arg != Py_None ? &table : NULL, group_buffer.buf, offsets_buffer.buf,
                                      data_buffer.buf, n, found_buffer.buf, found_size, &seen, repeats);
    Py_END_ALLOW_THREADS
    if (problem == 1) {
        PyErr_SetString(PyExc_ValueError, "match_keys: offsets out of order or past the data");
        goto release;
    }
    if (problem == 2) {
        PyErr_NoMemory();
        goto release;
    }
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
