"""Write the hostile inputs of this folder and record what ndeval 4.5 prints for each case.

    python3 make_expected.py /path/to/ndeval > expected_hostile.txt

Run from this folder; the binary is run as "ndeval" (a symlink), so that its
messages read "ndeval: ...". Every input is written here byte for byte from
the literals below; ndeval's standard output and exit status are recorded
exactly (stderr for information).
"""
from __future__ import annotations

import os
import random
import shlex
import subprocess
import sys
import tempfile

QRELS = b"1 1 d01 1\n1 2 d02 1\n1 2 d03 0\n2 1 d05 1\n2 2 d06 1\n3 1 d09 0\n"
RUN = b"1 Q0 d01 1 1 r\n1 Q0 d02 2 2 r\n1 Q0 d03 3 3 r\n2 Q0 d06 1 1 r\n2 Q0 d05 2 2 r\n"


def run_lines(scores: list[bytes], topic: bytes = b"1") -> bytes:
    return b"".join(b"%s Q0 d%02d %d %s r\n" % (topic, i + 1, i + 1, s) for i, s in enumerate(scores))


def nan_run(seed: int) -> tuple[bytes, bytes]:
    """Qrels and a run of NaN and numeric scores over three interleaved topics."""
    rnd = random.Random(seed)
    lines, qrels = [], []
    for topic in (1, 2, 3):
        n = rnd.randint(20, 150)
        share = rnd.random()
        for i in range(n):
            score = rnd.choice([b"nan", b"-nan", b"NaN"]) if rnd.random() < share else \
                b"%g" % rnd.choice([1, 2, 3, 0.5, -1, round(rnd.random(), 3)])
            lines.append(b"%d Q0 d%03d %d %s r\n" % (topic, i, i + 1, score))
            if rnd.random() < 0.3:
                qrels.append(b"%d %d d%03d 1\n" % (topic, rnd.randint(1, 3), i))
    rnd.shuffle(lines)
    return b"".join(qrels), b"".join(lines)


INPUTS = {
    "qrels.txt": QRELS,
    "run.txt": RUN,
    # separators: C isspace is space, \t, \n, \v, \f, \r
    "run_vtab.txt": RUN.replace(b"d01 1", b"d01\x0b1").replace(b"d05 2", b"d05\x0c\x0b2"),
    "qrels_formfeed.txt": QRELS.replace(b"1 1 d01", b"1\x0c1 d01"),
    "run_lone_cr.txt": RUN.replace(b"d02 2", b"d02\r2").replace(b"1 1 r\n", b"1 1 r\rjunk a b c d e\n", 1),
    "run_mixed_blanks.txt": b"  1\tQ0 d01 1 1  r\n\t1 Q0\t\td02 2 2 r x\n1 Q0 d03 3 3 r x y z\n2 Q0 d06 1 1 r\n",
    "run_crlf_no_final_newline.txt": RUN.replace(b"\n", b"\r\n")[:-2],
    # topics as parseTopic() reads them
    "run_topic_read_past_vtab.txt": b"q1\x0b1 d01 1 1 r\nq1\x0b1 d02 2 2 r\n",
    "run_topic_read_past_space.txt": b"+1 0 d01 1 1 r\n+1 1 d02 2 2 r\n",
    "run_topic_read_past_two_spaces.txt": b"q1  1 d01 1 1 r\n",
    "run_topic_dash.txt": b"-1 Q0 d01 1 1 r\nwt09-1 Q0 d02 2 2 r\n\xff-2 Q0 d05 1 1 r\n",
    "run_topic_plus.txt": b"+1 Q0 d01 1 1 r\n",
    "run_topic_zeros.txt": b"0001 Q0 d01 1 1 r\n00000000000000000001 Q0 d02 2 2 r\n",
    # bytes that are not UTF-8, and a non-breaking space (not a C space)
    "qrels_bytes.txt": b"1 1 d\xff1 1\n1 2 caf\xe9 1\n1 2 d\xc2\xa0x 1\n",
    "run_bytes.txt": b"1 Q0 d\xff1 1 1 r\xfe\xc3\n1 Q0 caf\xe9 2 2 x\n1 Q0 d\xc2\xa0x 3 3 x\n",
    "run_nbsp_runid.txt": b"1 Q0 d01 1 1 r\xc2\xa0id\n",
    # natural numbers: ASCII digits, at most 1000009
    "run_rank_zeros.txt": b"1 Q0 d01 00000000000000000001 1 r\n1 Q0 d02 0000002 2 r\n",
    "run_rank_20_digits.txt": b"1 Q0 d01 99999999999999999999 1 r\n",
    "run_rank_plus.txt": b"1 Q0 d01 +1 1 r\n",
    "run_rank_minus.txt": b"1 Q0 d01 -1 1 r\n",
    "run_rank_underscore.txt": b"1 Q0 d01 1_0 1 r\n",
    "run_rank_arabic.txt": "1 Q0 d01 \u0669 1 r\n".encode(),
    "run_rank_limits.txt": b"1 Q0 d01 1000009 1 r\n1 Q0 d02 0 2 r\n",
    "run_rank_over_limit.txt": b"1 Q0 d01 1000010 1 r\n",
    "qrels_judgment_20_digits.txt": b"1 1 d01 99999999999999999999\n",
    "qrels_judgment_zeros.txt": b"1 1 d01 007\n1 2 d02 000\n",
    "qrels_intent_500000.txt": b"1 500000 d01 1\n1 2 d02 1\n",
    "qrels_topic_arabic.txt": "\u0661 1 d01 1\n".encode(),
    "qrels_intent_1000009.txt": b"1 1000009 d01 1\n1 2 d02 1\n",
    # scores under -traditional, read as sscanf("%lf") does
    "run_score_prefixes.txt": run_lines([b"1_000", b"99.25abc", b"0x10", b"0x1.8p1", b"inf", b"-inf", b"1e5x",
                                         b"1e+", b"5.", b"+.5e-3", b"2e1", b"0X1P3", b"INFINITY", b"-0"]),
    "qrels_scores.txt": b"".join(b"1 %d d%02d 1\n" % (1 + i % 3, i) for i in (1, 3, 4, 6, 9, 11, 13, 14)),
    "run_score_unreadable.txt": b"".join(b"1 Q0 d%04d %d %s r\n" % (i, i, b"abc" if i % 3 else b"0.%d" % i)
                                         for i in range(1, 4101)),
    "qrels_score_unreadable.txt": b"1 1 d0007 1\n1 2 d0300 1\n1 1 d4000 1\n",
    "empty.txt": b"",
    "blank_lines_only.txt": b"  \n\t\n",
}
for seed in (1, 2, 3):
    INPUTS[f"qrels_nan{seed}.txt"], INPUTS[f"run_nan{seed}.txt"] = nan_run(seed)

CASES = [
    ("H01 vertical tab and form feed separate fields", "qrels.txt run_vtab.txt"),
    ("H02 form feed in qrels", "qrels_formfeed.txt run.txt"),
    ("H03 lone carriage returns separate fields", "qrels.txt run_lone_cr.txt"),
    ("H04 tabs, runs of blanks, leading blanks, extra fields", "qrels.txt run_mixed_blanks.txt"),
    ("H05 CRLF, no final newline", "qrels.txt run_crlf_no_final_newline.txt"),
    ("H06 topic q1 then \\v: read past into '1'", "qrels.txt run_topic_read_past_vtab.txt"),
    ("H07 topic +1 then one space: read past into the next field", "qrels.txt run_topic_read_past_space.txt"),
    ("H08 topic q1 then two spaces: syntax error", "qrels.txt run_topic_read_past_two_spaces.txt"),
    ("H09 topics -1, wt09-1, \\xff-2: after the dash", "qrels.txt run_topic_dash.txt"),
    ("H10 topic +1 then Q0: syntax error", "qrels.txt run_topic_plus.txt"),
    ("H11 topics with zeros in front", "qrels.txt run_topic_zeros.txt"),
    ("H12 docnos and runid that are not UTF-8", "qrels_bytes.txt run_bytes.txt"),
    ("H13 a non-breaking space is no separator", "qrels.txt run_nbsp_runid.txt"),
    ("H14 ranks with zeros in front", "qrels.txt run_rank_zeros.txt"),
    ("H15 rank of 20 digits", "qrels.txt run_rank_20_digits.txt"),
    ("H16 rank +1", "qrels.txt run_rank_plus.txt"),
    ("H17 rank -1", "qrels.txt run_rank_minus.txt"),
    ("H18 rank 1_0", "qrels.txt run_rank_underscore.txt"),
    ("H19 rank in Arabic-Indic digits", "qrels.txt run_rank_arabic.txt"),
    ("H20 ranks 1000009 and 0", "qrels.txt run_rank_limits.txt"),
    ("H21 rank 1000010", "qrels.txt run_rank_over_limit.txt"),
    ("H22 judgment of 20 digits", "qrels_judgment_20_digits.txt run.txt"),
    ("H23 judgments 007 and 000", "qrels_judgment_zeros.txt run.txt"),
    ("H24 intent 500000", "qrels_intent_500000.txt run.txt"),
    ("H25 qrels topic in Arabic-Indic digits", "qrels_topic_arabic.txt run.txt"),
    ("H26 scores read as sscanf %lf prefixes", "-traditional qrels_scores.txt run_score_prefixes.txt"),
    ("H27 scores sscanf cannot read, 4100 lines (fresh memory: 0)",
     "-traditional qrels_score_unreadable.txt run_score_unreadable.txt"),
    ("H28 NaN scores, merge-sort order", "-traditional qrels_nan1.txt run_nan1.txt"),
    ("H29 NaN scores, merge-sort order", "-traditional qrels_nan2.txt run_nan2.txt"),
    ("H30 NaN scores, merge-sort order, -M 7", "-traditional -M 7 qrels_nan3.txt run_nan3.txt"),
    ("H31 -alpha nan", "-alpha nan qrels.txt run.txt"),
    ("H32 -alpha -nan -c", "-alpha -nan -c qrels.txt run.txt"),
    ("H33 -beta nan", "-beta nan qrels.txt run.txt"),
    ("H34 -alpha nan -beta -nan", "-alpha nan -beta -nan qrels.txt run.txt"),
    ("H35 -alpha in Arabic-Indic digits: unread, alpha stays 0.5", "-alpha \u0660 qrels.txt run.txt"),
    ("H36 -alpha hex float with blanks in front", "-alpha 0x0.cp0 -beta ' 0.25' qrels.txt run.txt"),
    ("H37 -alpha inf", "-alpha inf qrels.txt run.txt"),
    ("H38 -M 4294967297 (low 32 bits: 1)", "-M 4294967297 qrels.txt run.txt"),
    ("H39 -M -4294967295 (low 32 bits: 1)", "-M -4294967295 qrels.txt run.txt"),
    ("H40 -M 2147483648 (negative int)", "-M 2147483648 qrels.txt run.txt"),
    ("H41 -M 4294967296 (0)", "-M 4294967296 qrels.txt run.txt"),
    ("H42 -M 99999999999999999999 (LONG_MAX: -1)", "-M 99999999999999999999 qrels.txt run.txt"),
    ("H43 -M 1x", "-M 1x qrels.txt run.txt"),
    ("H44 -alpha without a value", "-alpha qrels.txt run.txt"),
    ("H45 -baseline without a value", "-baseline qrels.txt run.txt"),
    ("H46 -riskAlpha nan with a baseline", "-riskAlpha nan -baseline run_nan1.txt qrels.txt run.txt"),
    ("H47 -riskAlpha 0.50x with a baseline (label keeps the text)", "-riskAlpha 0.50x -baseline run_vtab.txt qrels.txt run.txt"),
    ("H48 empty qrels", "empty.txt run.txt"),
    ("H49 run of blank lines", "qrels.txt blank_lines_only.txt"),
    # ndeval's arrays of 1000010 intents overflow the default 8 MiB stack: recorded with an unlimited one
    ("H50 intent 1000009 (stack unlimited)", "qrels_intent_1000009.txt run.txt"),
]
UNLIMITED_STACK = {"H50"}


def main() -> None:
    binary = os.path.abspath(sys.argv[1])
    for name, data in INPUTS.items():
        with open(name, "wb") as handle:
            handle.write(data)
    out = sys.stdout.buffer
    with tempfile.TemporaryDirectory() as bin_dir:
        os.symlink(binary, os.path.join(bin_dir, "ndeval"))
        for title, command in CASES:
            args = shlex.split(command)
            command_line = [os.path.join(bin_dir, "ndeval"), *args]
            if title.split()[0] in UNLIMITED_STACK:
                command_line = ["bash", "-c", 'ulimit -s unlimited && exec "$@"', "bash", *command_line]
            done = subprocess.run(command_line, capture_output=True)
            out.write(b"### %s\n$ ndeval %s\nrc=%d\n--- stdout\n%s--- stderr\n%s\n"
                      % (title.encode(), command.encode(), done.returncode, done.stdout, done.stderr))


if __name__ == "__main__":
    main()
