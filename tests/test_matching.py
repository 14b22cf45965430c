"""Matching a run's lines to the judgments, checked line by line against a plain dictionary lookup.

Every line must get its judged row and every topic that lists a docno twice must be found, whatever
the order of the lines, the lengths of the docnos (shorter than a word, a word, several, one a prefix
of another) and however often their hashes collide (model/text_keys.py: a hash only says where to
look, the bytes decide).
"""
from __future__ import annotations

import random

import numpy as np
import pyarrow as pa
import pytest

from divaleval import native
from divaleval.io import RunTable
from divaleval.model import Qrels
from divaleval.model import text_keys
from divaleval.model.text_keys import KeyTable, TextKeys, matched_keys
from divaleval.ranking import match_run


def random_case(seed: int, lines_per_topic: int):
    rng = random.Random(seed)
    topics = [f"t{j}" for j in range(6)]
    stems = ["d", "doc-", "clueweb12-0000tw-", "GX000-00-000000", "\u00e9t\u00e9-", "x" * 40]
    pool = [f"{rng.choice(stems)}{j}" for j in range(3 * lines_per_topic)]  # docnos shared across topics
    pool[:3] = ["a", "ab", "abcdefgh"]  # a prefix of the next, and exactly one word
    judged = {(t, d): rng.randint(0, 2) for t in topics[:4] for d in rng.sample(pool, lines_per_topic)}
    q_topic, q_docno = zip(*judged)
    qrels = Qrels.from_arrays(list(q_topic), None, list(q_docno), list(judged.values()))
    run_topic, run_docno = [], []
    for t in topics[2:]:  # two topics the qrels lack, two they share
        docnos = rng.sample(pool, lines_per_topic)
        if rng.random() < 0.5:
            docnos[-1] = docnos[0]  # a repeat
        run_topic += [t] * len(docnos)
        run_docno += docnos
    order = list(range(len(run_topic)))
    rng.shuffle(order)  # topics interleaved
    run = RunTable.from_arrays([run_topic[i] for i in order], [run_docno[i] for i in order],
                               score=[float(len(order) - i) for i in range(len(order))])
    return qrels, run, [run_topic[i] for i in order], [run_docno[i] for i in order]


@pytest.fixture(params=["compiled", "numpy"])
def matcher(request, monkeypatch):
    """Both matchers held to the dictionary: the compiled kernel (divaleval/native) and the numpy path."""
    if request.param == "compiled" and not native.built():
        pytest.skip("the compiled kernels are not built")
    monkeypatch.setenv("DIVALEVAL_NATIVE", "1" if request.param == "compiled" else "0")


@pytest.mark.usefixtures("matcher")
@pytest.mark.parametrize("lines_per_topic", [3, 128])
@pytest.mark.parametrize("seed", range(12))
def test_each_line_gets_its_judged_row_and_repeats_are_found(seed, lines_per_topic):
    qrels, run, topics, docnos = random_case(seed, lines_per_topic)
    matched = match_run(run, qrels)
    row_of = {}
    for row in range(len(qrels.row_topic)):
        topic = qrels.topic_ids[qrels.row_topic[row]]
        docno = qrels.docnos[int(qrels.row_key[row] % len(qrels.docnos))].as_py().decode()
        row_of[topic, docno] = row
    assert matched.row.tolist() == [row_of.get((t, d), -1) for t, d in zip(topics, docnos)]
    repeating = {t for t in set(topics) if len([d for u, d in zip(topics, docnos) if u == t]) !=
                 len({d for u, d in zip(topics, docnos) if u == t})}
    known = list(qrels.topic_ids)
    index_of = {t: (known.index(t) if t in known else qrels.n_topics + sorted(set(topics) - set(known)).index(t))
                for t in set(topics)}
    assert sorted(matched.repeat_topics.tolist()) == sorted(index_of[t] for t in repeating)


def test_hash_collisions_cost_probes_not_matches(monkeypatch):
    """With every hash one of two values, each lookup walks past keys with its hash: still exact."""
    monkeypatch.setenv("DIVALEVAL_NATIVE", "0")  # the compiled matcher computes real hashes
    real = TextKeys._hash
    monkeypatch.setattr(TextKeys, "_hash", staticmethod(lambda w, l, g: (real(w, l, g) & np.uint64(2)) | np.uint64(1)))
    test_each_line_gets_its_judged_row_and_repeats_are_found(3, 128)
    test_each_line_gets_its_judged_row_and_repeats_are_found(5, 3)


def texts(values):
    return pa.array([v.encode() if isinstance(v, str) else v for v in values], pa.binary())


def test_keys_equal_exactly_when_group_and_bytes_are_equal():
    values = ["", "a", "a\x00", "\x00a", "abcdefg", "abcdefgh", "abcdefghi", "abcdefgh" * 2, "abcdefgh" * 2 + "x",
              "xbcdefgh" * 2, "abcdefgh" + "xbcdefgh", b"\xff\xfe", "abc", "abd"]
    groups = [0, 1]
    pairs = [(g, v) for g in groups for v in values]
    keys = TextKeys.of(texts([v for _, v in pairs]), np.array([g for g, _ in pairs]))
    everyone = np.arange(len(pairs))
    for i, pair in enumerate(pairs):
        same = keys.equal(np.full(len(pairs), i), keys, everyone)
        assert same.tolist() == [other == pair for other in pairs]
    assert len(np.unique(keys.hash)) == len(pairs)  # no collision among these (not needed, but expected)


@pytest.mark.parametrize("kind", ["arrow", "sliced", "chunked", "packed"])
def test_keys_of_rows_are_the_keys_of_the_texts_taken(kind):
    """``TextKeys.of(texts, groups, rows=...)`` (each text read once: the judged pairs' table) gives the keys that
    reading ``texts[rows]`` one by one gives: the same words, lengths and hashes, and the table finds each."""
    from divaleval.arrays import PackedTexts

    values = [b"abcdefghij", b"", b"a", b"\x00", b"abcdefgh", b"\xff" * 17, b"ab\x00", b"q"]  # short texts last
    rng = random.Random(3)
    rows = np.array([rng.randrange(len(values)) for _ in range(40)] + list(range(len(values))))
    group = np.array([rng.randrange(3) for _ in rows])
    given = {"arrow": texts(values), "sliced": texts([b"zzzzzzzzzzzz", *values]).slice(1),
             "chunked": pa.chunked_array([texts(values[:3]), texts(values[3:])]),
             "packed": PackedTexts.of_arrow(texts(values))}[kind]
    ours = TextKeys.of(given, group, rows=rows)
    theirs = TextKeys.of(texts([values[r] for r in rows]), group)
    assert ours.length.tolist() == theirs.length.tolist() and ours.group.tolist() == theirs.group.tolist()
    assert ours.hash.tolist() == theirs.hash.tolist()
    assert ours.equal(np.arange(len(rows)), theirs, np.arange(len(rows))).all()
    assert ours.words.flags.c_contiguous
    distinct = sorted(set(zip(group.tolist(), rows.tolist())), key=lambda pair: (pair[0], pair[1]))
    keep = [next(i for i, pair in enumerate(zip(group.tolist(), rows.tolist())) if pair == d) for d in distinct]
    table = KeyTable(ours.take(np.array(keep)))
    assert table.find(theirs.take(np.array(keep))).tolist() == list(range(len(keep)))


def test_keys_do_not_depend_on_their_neighbours():
    """A text's key is the same whatever the longest text beside it, and across chunks and slices."""
    alone = TextKeys.of(texts(["abc"]), np.array([7]))
    among = TextKeys.of(pa.chunked_array([texts(["z" * 50, "q"]).slice(1), texts(["x" * 30, "abc", "y"]).slice(1, 1)]),
                        np.array([7, 7]))
    assert among.hash[1] == alone.hash[0] and among.equal(np.array([1]), alone, np.array([0])).all()
    table = KeyTable(alone)
    assert table.find(among).tolist() == [-1, 0]
    for kind in (pa.string(), pa.large_binary(), pa.large_string()):  # any text array: the same keys
        assert TextKeys.of(pa.array(["q", "abc"], kind), np.array([7, 7])).hash.tolist() == among.hash.tolist()
    shown = ["abc", "abcdefgh", "abcdefghijk", "a" * 20]
    first = TextKeys.of(texts([*shown, "z" * 33]), np.zeros(5))
    second = TextKeys.of(texts(["y" * 41, *[text + "" for text in shown]][::-1]), np.zeros(5))  # other neighbours
    for i in range(len(shown)):
        j = len(shown) - 1 - i
        assert first.hash[i] == second.hash[j] and first.equal(np.array([i]), second, np.array([j])).all()


@pytest.mark.usefixtures("matcher")
def test_repeated_and_found_on_random_texts():
    rng = np.random.default_rng(11)
    alphabet = np.frombuffer(b"ab\x00\xff", dtype=np.uint8)
    values = [bytes(rng.choice(alphabet, size=rng.integers(1, 20))) for _ in range(3000)]
    groups = rng.integers(0, 3, size=len(values))
    seen, expected = set(), []
    for i, key in enumerate(zip(groups.tolist(), values)):
        if key in seen:
            expected.append(i)
        seen.add(key)
    assert matched_keys(None, texts(values), groups)[1].tolist() == expected
    distinct = sorted(seen)
    table = KeyTable(TextKeys.of(texts([v for _, v in distinct]), np.array([g for g, _ in distinct])))
    where = {key: i for i, key in enumerate(distinct)}
    asked = [(int(g), v) for g, v in zip(rng.integers(0, 4, size=2000).tolist(), values[:2000])]
    found, repeated = matched_keys(table, texts([v for _, v in asked]), np.array([g for g, _ in asked]))
    assert found.tolist() == [where.get(key, -1) for key in asked]
    assert repeated.tolist() == [i for i, key in enumerate(asked) if key in asked[:i]]


def test_empty():
    empty = TextKeys.of(texts([]), np.zeros(0, np.int64))
    assert len(empty) == 0 and [part.tolist() for part in matched_keys(None, texts([]), np.zeros(0))] == [[], []]
    assert KeyTable(empty).find(TextKeys.of(texts(["a"]), np.zeros(1))).tolist() == [-1]
    assert KeyTable(TextKeys.of(texts(["a"]), np.zeros(1))).find(empty).tolist() == []


def test_keys_in_blocks(monkeypatch):
    """A run's keys are made and looked up text_keys.BLOCK_ROWS at a time; repeats across blocks count."""
    monkeypatch.setenv("DIVALEVAL_NATIVE", "0")  # the numpy path's blocks
    monkeypatch.setattr(text_keys, "BLOCK_ROWS", 5)
    test_repeated_and_found_on_random_texts()
    test_each_line_gets_its_judged_row_and_repeats_are_found(7, 128)


@pytest.mark.parametrize("rounds", [0, 1, 2])
def test_lookups_past_the_probing_limit_sort_instead(monkeypatch, rounds):
    """Keys made to share hashes would make probing slow: past text_keys.MAX_ROUNDS a table sorts
    instead (at 0 every lookup sorts; at 1 or 2 the keys still probing do), with the same rows."""
    monkeypatch.setenv("DIVALEVAL_NATIVE", "0")  # the numpy path's probing
    monkeypatch.setattr(text_keys, "MAX_ROUNDS", rounds)
    for seed, lines in [(1, 128), (2, 3), (4, 128)]:
        test_each_line_gets_its_judged_row_and_repeats_are_found(seed, lines)
    test_repeated_and_found_on_random_texts()
    test_empty()


def test_one_hash_for_every_key_still_finishes(monkeypatch):
    """Every key with one hash: the table is given up after text_keys.MAX_ROUNDS rounds, not built in
    as many rounds as keys, and lookups are still exact."""
    monkeypatch.setenv("DIVALEVAL_NATIVE", "0")  # the compiled matcher computes real hashes
    monkeypatch.setattr(TextKeys, "_hash", staticmethod(lambda w, l, g: np.full(len(l), 12345, dtype=np.uint64)))
    test_each_line_gets_its_judged_row_and_repeats_are_found(6, 128)
    test_repeated_and_found_on_random_texts()
