"""Statistics over a topics x runs matrix: pure numpy, knowing no measure.

* :func:`paired_t` (with the interval and effect size of the mean difference),
  :func:`randomisation_test` (Fisher, two-sided), :func:`randomised_tukey_hsd`,
  :func:`paired_bootstrap` (studentised, Sakai 2006), :func:`bootstrap_max_t` (its
  family-wise form, Westfall & Young 1993), :func:`holm`;
* simultaneous intervals that agree with the tests: :func:`bonferroni_interval`,
  :func:`randomised_tukey_hsd_intervals`, :func:`paired_bootstrap_intervals`
  (critical values of randomised tests: :mod:`.critical`); randomised p-values
  are (b + 1) / (B + 1) (:func:`monte_carlo_p`, :func:`monte_carlo_se`);
* effect sizes (:mod:`.effects`): d_z's noncentral-t interval, Sakai's ES_E2
  (the two-way ANOVA residual variance), Hedges' g_av;
* :func:`kendall_tau_b`, :func:`fisher_interval`, :func:`systems_from_pairs`;
* :func:`risk_adjusted`, :func:`risk_test`: URisk and TRisk against a baseline (Dinçer et al. 2014).

Randomised procedures take a seed (an int, a SeedSequence or a Generator) and
run their trials in blocks (:mod:`divaleval.stats.blocks`), each with a stream
of its own: the blocks can run anywhere and give the same p-values.
"""
from .blocks import BLOCK_TRIALS, TrialBlock, combine_counts, monte_carlo_p, monte_carlo_se, run_blocks, trial_blocks
from .bootstrap import PairedBootstrap, paired_bootstrap, paired_bootstrap_intervals
from .bootstrap_maxt import bootstrap_max_t
from .correction import holm
from .distributions import t_quantile, t_two_sided
from .effects import dz_interval, hedges_g_av, residual_variance
from .kendall import fisher_interval, kendall_tau_b, preference_tau, systems_from_pairs, tau_b
from .paired import PairedT, all_pairs, baseline_pairs, bonferroni_interval, differences, paired_t
from .randomisation import randomisation_test
from .risk import RiskTest, risk_adjusted, risk_test
from .tukey import TukeyHSD, randomised_tukey_hsd, randomised_tukey_hsd_intervals

__all__ = [
    "BLOCK_TRIALS",
    "TrialBlock",
    "trial_blocks",
    "run_blocks",
    "combine_counts",
    "paired_t",
    "PairedT",
    "randomisation_test",
    "randomised_tukey_hsd",
    "paired_bootstrap",
    "bootstrap_max_t",
    "paired_bootstrap_intervals",
    "PairedBootstrap",
    "randomised_tukey_hsd_intervals",
    "TukeyHSD",
    "bonferroni_interval",
    "monte_carlo_p",
    "monte_carlo_se",
    "dz_interval",
    "residual_variance",
    "hedges_g_av",
    "holm",
    "kendall_tau_b",
    "tau_b",
    "fisher_interval",
    "systems_from_pairs",
    "preference_tau",
    "all_pairs",
    "baseline_pairs",
    "differences",
    "t_two_sided",
    "t_quantile",
    "RiskTest",
    "risk_adjusted",
    "risk_test",
]
