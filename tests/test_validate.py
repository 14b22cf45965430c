"""``divaleval validate``: every problem of a run submission as FILE:LINE, a summary, exit 0/1 (2 on bad usage),
and ``--fix``, which writes a corrected copy and never touches its input."""
from __future__ import annotations

import gzip

import pytest
from click.testing import CliRunner

import divaleval
from conftest import NDEVAL_EXAMPLES, SAMPLE, run_cli, shared_path
from divaleval.cli import main_group
from divaleval.io.validate import check_run, fix_run

BAD = (
    "1 Q0 d1 1 3.0 tagA\n"        # 1
    "1 Q0 d2 2 4.0 tagA\n"        # 2: score above rank 1's
    "1 Q0 d1 3 2.0 tagA\n"        # 3: d1 again
    "1 X d4 5 1.0 tagB\n"         # 4: not Q0, a second runtag, rank 4 skipped, a 4th document (max 3)
    "2 Q0 d1 1 1.0 tagA extra\n"  # 5: seven fields
    "3 Q0 d9 1\n"                 # 6: four fields
    "\n"                          # 7: blank, fine
    "7 Q0 d1 x nan tagA\n"        # 8: rank and score no numbers, topic 7 not in the list
    "2 Q0 doc5 2 0.5 tagA\n"      # 9: docno off the pattern d[0-9]
)


def invoke(*args):
    return CliRunner().invoke(main_group, ["validate", *[str(a) for a in args]])


@pytest.fixture
def bad_run(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text(BAD)
    (tmp_path / "topics.txt").write_text("1\n2\n5\n")
    return path


def test_every_problem_at_its_line(bad_run, tmp_path):
    check = check_run(str(bad_run), topics=["1", "2", "5"], max_docs=3, docno_pattern=r"d[0-9]")
    found = [(p.line, p.kind) for p in check.problems]
    assert found == [(2, "order"), (3, "repeat"), (4, "Q0"), (4, "runtag"), (4, "rank"), (4, "depth"),
                     (5, "fields"), (6, "fields"), (8, "number"), (8, "number"), (8, "topic"), (9, "docno"),
                     (None, "missing")]
    text = [str(p) for p in check.problems]
    assert text[1] == f"{bad_run}:3: docno d1 of topic 1 repeats line 1"
    assert text[4] == f"{bad_run}:4: rank 5 of topic 1 where 4 was expected (ranks run 1, 2, ... without gaps)"
    assert text[-1] == f"{bad_run}: no documents for 1 topic of the topic list: 5"
    assert check.lines == 8 and check.topics == ["1", "2", "7"] and check.runtag == "tagA"


def test_command_exit_status_and_summary(bad_run, tmp_path):
    result = invoke("--topics", tmp_path / "topics.txt", "--max-docs", "3", "--docno-pattern", "d[0-9]", bad_run,
                    SAMPLE / "runs" / "bm25.txt")
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines[0].startswith(f"{bad_run}:2: topic 1: score 4.0 at rank 2 is above score 3.0 at rank 1 (line 1)")
    assert f"{bad_run}: 13 problems (2 fields, 1 Q0, 2 number, 1 runtag, 1 topic, 1 docno, 1 repeat, 1 rank, " \
           "1 order, 1 depth, 1 missing); 8 lines, 3 topics, runtag 'tagA'" in lines
    assert lines[-1] == "2 files: 0 valid, 2 with problems"
    clean = invoke(SAMPLE / "runs")
    assert clean.exit_code == 0
    assert clean.output.splitlines()[-1] == "3 files: 3 valid, 0 with problems"
    assert invoke(tmp_path / "missing.txt").exit_code == 2
    bad_pattern = invoke("--docno-pattern", "(", bad_run)
    assert bad_pattern.exit_code == 2 and "--docno-pattern" in bad_pattern.output
    quiet = invoke("-q", bad_run)
    assert quiet.output.splitlines() == [
        f"{bad_run}: 9 problems (2 fields, 1 Q0, 2 number, 1 runtag, 1 repeat, 1 rank, 1 order); 8 lines, "
        "3 topics, runtag 'tagA'"]


def test_fix_writes_a_corrected_copy(bad_run, tmp_path):
    before = bad_run.read_bytes()
    target = tmp_path / "fixed.txt"
    result = invoke("--topics", tmp_path / "topics.txt", "--max-docs", "3", "--fix", target, bad_run)
    assert result.exit_code == 1  # the input had problems
    assert bad_run.read_bytes() == before
    # Topic 1 by score: d2 4.0, d1 3.0, (d1 2.0 repeats), d4 1.0; topic 2: d1, doc5; lines 6 and 8 cannot be placed.
    assert target.read_text() == ("1 Q0 d2 1 4.0 tagA\n1 Q0 d1 2 3.0 tagA\n1 Q0 d4 3 1.0 tagA\n"
                                  "2 Q0 d1 1 1.0 tagA\n2 Q0 doc5 2 0.5 tagA\n")
    again = check_run(str(target), topics=["1", "2", "5"], max_docs=3)
    assert [p.kind for p in again.problems] == ["missing"]    # a topic nobody answered cannot be made up
    assert result.stderr == f"divaleval: wrote {target}: kept 5 lines, left out 3 (1 short lines, 1 bad scores, " \
                            "1 repeated docnos)\n"


def test_fix_never_overwrites(bad_run, tmp_path):
    before = bad_run.read_bytes()
    in_place = invoke("--fix", bad_run, bad_run)
    assert in_place.exit_code == 2 and "is an input" in in_place.output
    existing = tmp_path / "existing.txt"
    existing.write_text("keep me\n")
    refused = invoke("--fix", existing, bad_run)
    assert refused.exit_code == 2 and "will not be overwritten" in refused.output
    assert existing.read_text() == "keep me\n" and bad_run.read_bytes() == before


def test_fix_into_a_directory(tmp_path):
    result = invoke("--fix", tmp_path / "fixed", SAMPLE / "runs")
    assert result.exit_code == 0
    for run in (SAMPLE / "runs").iterdir():
        fixed = tmp_path / "fixed" / run.name
        assert check_run(str(fixed)).ok
        # Already valid runs keep their ranking: the same scores under every order rule.
        for order in ("score", "rank"):
            original = divaleval.evaluate(str(SAMPLE / "qrels.txt"), str(run), order=order, warn=lambda m: None)
            again = divaleval.evaluate(str(SAMPLE / "qrels.txt"), str(fixed), order=order, warn=lambda m: None)
            assert original.reset_index(drop=True).equals(again.reset_index(drop=True))


def test_fixed_ranks_follow_the_scores(tmp_path):
    # ndeval's example runB has score ties, ranks that disagree with scores and gaps: once fixed, the rank order
    # (ndeval's default) gives what the score order gives on the original (trec_eval's, ndeval -traditional).
    source = NDEVAL_EXAMPLES / "runB.txt"
    check = check_run(str(source))
    assert {p.kind for p in check.problems} >= {"rank", "order"}
    fixed = tmp_path / "runB.fixed"
    fixed.write_bytes(fix_run(check).data)
    assert check_run(str(fixed)).ok
    qrels = str(NDEVAL_EXAMPLES / "qrels.txt")
    by_score = divaleval.evaluate(qrels, str(source), order="score", warn=lambda m: None)
    by_rank = divaleval.evaluate(qrels, str(fixed), order="rank", warn=lambda m: None)
    assert by_score.reset_index(drop=True).equals(by_rank.reset_index(drop=True))


def test_gzip_and_crlf(tmp_path):
    path = tmp_path / "run.gz"
    path.write_bytes(gzip.compress(b"1 Q0 a 1 2 t\r\n1 Q0 b 3 1 t\r\n"))
    check = check_run(str(path))
    assert [(p.line, p.kind) for p in check.problems] == [(2, "rank")]


@pytest.mark.slow
def test_trec2012_baselines():
    # The organisers' runs: the unfiltered ones are valid submissions; the filtered ones kept their original,
    # gapped rank numbers (../shared/oracle/ntcireval/trec2012/README.md).
    data = shared_path("data", "trec-web", "2012")
    runs = data / "baseline-runs"
    plain = run_cli(["validate", "--topics", data / "qrels.diversity.txt", "--max-docs", "1000",
                     "--docno-pattern", r"clueweb09-(?:en\d{4}|enwp\d{2})-\d{2}-\d{5}", runs / "ql" / "results-cata.txt"])
    assert plain.returncode == 0, plain.stdout
    filtered = check_run(str(runs / "ql" / "results-cata-filtered.txt"))
    assert filtered.problems and {p.kind for p in filtered.problems} == {"rank"}


def test_one_cause_on_many_lines_is_one_problem(tmp_path):
    # NTCIR-style runs write 0 for Q0; gapped ranks (a filtered run): each reported once per cause, with the count.
    path = tmp_path / "run.txt"
    path.write_text("1 0 a 1 3 t\n1 0 b 3 2 t\n1 0 c 5 1 t\n2 0 a 1 1 t\n")
    check = check_run(str(path))
    assert [str(p) for p in check.problems] == [
        f"{path}:1: second field is '0', not Q0 (and 3 more lines alike)",
        f"{path}:2: rank 3 of topic 1 where 2 was expected (ranks run 1, 2, ... without gaps) (and 1 more line alike)"]
    fixed = tmp_path / "fixed.txt"
    assert invoke("--fix", fixed, path).exit_code == 1
    assert fixed.read_text() == "1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 c 3 1 t\n2 Q0 a 1 1 t\n"


def test_read_as_evaluating_reads(tmp_path):
    # The topic list through the same splitter (BOM, CRLF, tabs); a rank beyond 64 bits read as the reader
    # reads it (clipped) but shown as written; lines evaluating refuses marked so.
    topics = tmp_path / "topics.txt"
    topics.write_bytes(b"\xef\xbb\xbf101 0 d 1\r\n\n102\tx\r\n")
    from divaleval.io.validate import read_topic_list
    assert read_topic_list(str(topics)) == ["101", "102"]
    path = tmp_path / "run.txt"
    path.write_text("101 Q0 a 1 2 t\n101 Q0 b 99999999999999999999 1 t\n101 Q0 c 2 nan t\n")
    check = check_run(str(path))
    assert [(str(p), p.refused) for p in check.problems] == [
        (f"{path}:2: rank 99999999999999999999 of topic 101 where 3 was expected (ranks run 1, 2, ... without gaps)",
         False),
        (f"{path}:3: score 'nan' is not a number", True)]
