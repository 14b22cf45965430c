"""The organiser's report (``divaleval report``): what a track sends its participants, computed from a score cube.

Computations only, returning frames (:mod:`divaleval.output.report_site` draws
the pages): the runs ranked by one measure with simultaneous intervals, the
randomised Tukey HSD between every two runs and the groups of runs it does not
tell apart, Kendall's tau between the measures' rankings, and per topic and
measure the best, median and worst score over all runs
(:func:`topic_summary`). Not to be confused with :mod:`divaleval.meta.report`,
the sections of ``divaleval meta``.
"""
from .summary import SUMMARY_COLUMNS, run_topic_view, topic_summary
from .track import TrackReport, topic_extremes, track_report

__all__ = ["SUMMARY_COLUMNS", "TrackReport", "run_topic_view", "topic_extremes", "topic_summary", "track_report"]
