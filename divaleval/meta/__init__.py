"""Meta-evaluation and run comparisons over a score cube (runs x topics x measures), never files.

* :func:`compare_runs`: means, differences, intervals, effect sizes, p-values (t, randomisation, Tukey HSD);
* :func:`rank_correlation`: Kendall's tau-b between measures' system rankings, with Fisher-z intervals;
* :func:`pair_significance`, :func:`power_summary`, :func:`asl_curves`: discriminative power;
* :func:`metric_unanimity`: Metric Unanimity (Amigó et al. 2018), under either reading of "unanimous";
* :func:`gold_agreement`: agreement with gold preferences (Sakai & Zeng 2019);
* :func:`risk_scores`, :func:`risk_frame`: URisk and TRisk against a baseline run (Dinçer et al. 2014);
* :func:`meta_report`: the sections of ``divaleval meta`` together, as a :class:`MetaReport`.
"""
from .compare import compare_runs, topic_differences
from .correlation import rank_correlation, tau_matrix
from .cube import MISSING, ScoreCube, cube_from_frame, cube_from_scores, cube_from_tables
from .gold import gold_agreement
from .power import CONTROL, DEFAULT_METHODS, METHODS, asl_curves, pair_significance, power_summary
from .report import DEFAULT_SECTIONS, SECTIONS, MetaReport, chosen_methods, chosen_sections, meta_report
from .risk import RISK_COLUMNS, risk_frame, risk_scores
from .unanimity import DEFAULT_READING, READINGS, metric_unanimity

__all__ = [
    "ScoreCube",
    "MISSING",
    "METHODS",
    "DEFAULT_METHODS",
    "CONTROL",
    "READINGS",
    "DEFAULT_READING",
    "cube_from_scores",
    "cube_from_frame",
    "cube_from_tables",
    "compare_runs",
    "topic_differences",
    "rank_correlation",
    "tau_matrix",
    "pair_significance",
    "power_summary",
    "asl_curves",
    "metric_unanimity",
    "gold_agreement",
    "risk_scores",
    "risk_frame",
    "RISK_COLUMNS",
    "SECTIONS",
    "DEFAULT_SECTIONS",
    "MetaReport",
    "meta_report",
    "chosen_sections",
    "chosen_methods",
]
