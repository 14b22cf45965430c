"""What compare, the report and the rank correlation print as a run's score under a measure: the summary
divaleval's evaluation prints (GMAP's geometric mean, a count's sum), not the arithmetic mean of the
per-topic values their tests are about. Every expected number is computed by hand in the test."""
from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

from divaleval.cli import main_group
from divaleval.errors import UsageError
from divaleval.meta.correlation import rank_correlation
from divaleval.meta.cube import ScoreCube
from divaleval.report.track import track_report

# Two runs, two topics. Per topic: GMAP's value is AP's; num_ret is a count.
#   run a: AP 0.5, 0.125 -> arithmetic 0.3125, geometric sqrt(0.0625) = 0.25
#   run b: AP 0.3, 0.3   -> arithmetic 0.3,    geometric 0.3
# so the arithmetic mean ranks a first and the geometric mean ranks b first.
VALUES = np.array([[[0.5, 0.5, 10.0], [0.125, 0.125, 20.0]],
                   [[0.3, 0.3, 5.0], [0.3, 0.3, 5.0]]])
CUBE = ScoreCube(("a", "b"), ("a", "b"), ("1", "2"), ("GMAP", "AP", "num_ret"), VALUES)


def test_summaries_are_what_evaluation_prints_and_means_stay_arithmetic():
    np.testing.assert_allclose(CUBE.summaries(), [[0.25, 0.3125, 30.0], [0.3, 0.3, 10.0]], rtol=1e-15)
    np.testing.assert_allclose(CUBE.means(), [[0.3125, 0.3125, 15.0], [0.3, 0.3, 5.0]], rtol=1e-15)
    assert CUBE.summarised_otherwise() == ["GMAP", "num_ret"]
    unknown = ScoreCube(("a", "b"), ("a", "b"), ("1", "2"), ("x", "GMAP", "y"), VALUES)
    np.testing.assert_allclose(unknown.summaries(), [[0.3125, 0.3125, 15.0], [0.3, 0.3, 5.0]], rtol=1e-15)


def test_rank_correlation_ranks_by_the_printed_summary():
    # GMAP ranks b over a, AP a over b: over two runs tau-b is -1; num_ret ranks a first, like AP.
    tau = rank_correlation(CUBE).set_index(["measure_a", "measure_b"])["tau"]
    assert tau[("GMAP", "AP")] == pytest.approx(-1.0)
    assert tau[("AP", "num_ret")] == pytest.approx(1.0)


def test_report_prints_summaries_and_refuses_to_rank_by_a_geometric_mean():
    report = track_report(CUBE, ["a", "b"], "AP", trials=50)
    assert report.means.loc["a"].tolist() == pytest.approx([0.25, 0.3125, 30.0])
    with pytest.raises(UsageError, match="GMAP"):
        track_report(CUBE, ["a", "b"], "GMAP", trials=50)


def test_compare_means_table_prints_gmap_as_evaluation_does(tmp_path):
    # Topic 1: a retrieves its relevant document first (AP 1), b second (AP 1/2);
    # topic 2: a second (AP 1/2), b first (AP 1).  GMAP: sqrt(1/2) = 0.7071 for both; AP's mean: 0.75.
    (tmp_path / "qrels").write_text("1 0 d1 1\n2 0 e1 1\n")
    (tmp_path / "a").write_text("1 Q0 d1 1 2 a\n1 Q0 d2 2 1 a\n2 Q0 e2 1 2 a\n2 Q0 e1 2 1 a\n")
    (tmp_path / "b").write_text("1 Q0 d2 1 2 b\n1 Q0 d1 2 1 b\n2 Q0 e1 1 2 b\n2 Q0 e2 2 1 b\n")
    result = CliRunner().invoke(main_group, ["compare", "-q", "-B", "20", "-m", "GMAP", "-m", "map",
                                             *(str(tmp_path / n) for n in ("qrels", "a", "b"))])
    assert result.exit_code == 0, result.output
    means = result.output.split("Means\n")[1].split("\n\n")[0].splitlines()
    assert means[2].split() == ["a", "0.7071", "0.7500"]
    assert means[3].split() == ["b", "0.7071", "0.7500"]
    assert "GMAP: the summary divaleval prints" in means[4]
