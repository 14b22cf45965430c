"""``divaleval [evaluate] [OPTIONS] QRELS RUN...``: the default command.

Thin by design: the options are read here and become one call of
:func:`divaleval.cli.evaluation.evaluate_runs`, whose per-run results stream into
the chosen output format. The library is imported when the command runs, not
when it is defined: ``--version``, ``--help`` and a bad option cost Python and
click, not numpy and pyarrow (the option values: choices.py).
"""
from __future__ import annotations

import click

from .. import __version__
from ..errors import DivalevalError, UsageError
from .choices import DEFAULT_COMMAND, FORMATS, MODE_SUMMARIES, ORDERS
from .evaluation import evaluate_runs, show_input_error
from .group import CONTEXT, DocumentedCommand, PlainContext, main_group
from .scaleout import cluster_options
from .types import PlainFloat, PlainInt

EPILOG = """\b
Examples (from the root of the repository, on its sample data):
  divaleval sample_data/qrels.txt sample_data/runs/bm25.txt       # ndeval's 21 columns, ndeval's CSV
  divaleval -m alpha-nDCG@20 -m ERR-IA@20 -f table sample_data/qrels.txt sample_data/runs/
  divaleval -m 'alpha-nDCG(alpha=0.8)@30' -c -M 100 -n -f trec sample_data/qrels.txt sample_data/runs/
  divaleval -m ndcg_cut.10,20 -m alpha_nDCG@20 sample_data/qrels.txt sample_data/runs/   # trec_eval's, ir_measures' names
  divaleval -J -m bpref -m map --rel-min 2 sample_data/qrels.txt sample_data/runs/  # condensed lists, relevant = level >= 2
  gzip -c sample_data/runs/bm25.txt | divaleval sample_data/qrels.txt -
  divaleval --baseline sample_data/runs/bm25.txt --risk-alpha 1 -m nDCG@20 sample_data/qrels.txt sample_data/runs/
  divaleval simulate-preferences sample_data/qrels.txt | divaleval --prefs - -m 'nPrf(p=rr,f=min)@20' sample_data/runs/
  divaleval -j 2 -f json sample_data/qrels.txt sample_data/runs/ > scores.jsonl   # 2 worker processes

\b
RUN may be a file, a directory (every file in it, sorted by name), '-' for
standard input; gzip is read transparently. Exit status: 0 on success, 2 on a
bad option or input (the message names the file and line).
"""


class EvaluateCommand(DocumentedCommand):
    """The default command: its usage line and help name it as users type it, and list the other commands."""

    context_class = PlainContext

    def format_usage(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        formatter.write_usage("divaleval", "[OPTIONS] QRELS RUN...\n" + " " * 7 + "divaleval COMMAND [ARGS]...")

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_epilog(ctx, formatter)
        group = ctx.parent.command if ctx.parent else None
        if isinstance(group, click.Group):
            rows = [(name, group.command_short_help(ctx, name)) for name in group.list_commands(ctx)
                    if name != DEFAULT_COMMAND]
            with formatter.section("Commands (each with its own --help)"):
                formatter.write_dl(rows)


def _list_measures(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    from ..output.measures import measure_list  # (the catalogue, without the evaluator's chain)

    click.echo(measure_list(), nl=False)
    ctx.exit(0)


@main_group.command(
    DEFAULT_COMMAND,
    cls=EvaluateCommand,
    epilog=EPILOG,
    context_settings=CONTEXT,
    short_help="Evaluate runs against intentwise or multi-aspect qrels (the default command).",
)
@click.argument("inputs", metavar="QRELS RUN...", nargs=-1, required=True)
@click.option("-m", "--measure", "measures", multiple=True, metavar="NAME",
              help="Measure to compute (repeatable; default: the ndeval set). See --list-measures.")
@click.option("--list-measures", is_flag=True, is_eager=True, expose_value=False, callback=_list_measures,
              help="List every measure with its parameters and definition, and exit.")
@click.option("--iprob", metavar="FILE", help="Intent probabilities: topic intent probability [inf|nav] "
                                               "(the type is read by the DIN- and P+Q measures).")
@click.option("--aspect", "aspects", multiple=True, metavar="NAME=FILE[,..]",
              help="Multi-aspect qrels, one file per aspect (repeat; then QRELS is left out): "
                   "NAME=FILE, then any of ,labels=0:1:2 ,embed=0:1.5:3 ,gains=0:5:10 ,bins=25:50:75. "
                   "For TOMA, CAM and MM.")
@click.option("--prefs", metavar="FILE", help="Preference judgments, 'topic assessor [given] docA docB winner' "
                                              "(then QRELS is left out). For nPrf.")
@click.option("--order", type=click.Choice(ORDERS), default=None,
              help="Ranking order: score (descending, ties by docno descending, as trec_eval; the default), "
                   "rank (the rank column, as ndeval) or file (line order, as NTCIREVAL; the default "
                   "of its --compat mode).")
@click.option("--gain", default="exp", show_default=True, metavar="TABLE",
              help="Gains of graded levels: exp (2^L-1), linear (L) or G1:G2:... (e.g. 1:3:7:15).")
@click.option("--topicwise", type=click.Choice(["sumlog", "max"]), default="sumlog", show_default=True,
              help="One level per document for ad hoc measures on intentwise qrels: "
                   "sumlog = floor(log2(S+1)) of the sum S of its levels (Sakai & Zeng), or max.")
@click.option("--compat", type=click.Choice(sorted(MODE_SUMMARIES)), default=None,
              help="Reproduce a reference tool's conventions. "
                   + "; ".join(f"{name}: {summary}" for name, summary in sorted(MODE_SUMMARIES.items())) + ".")
@click.option("-c", "--complete", is_flag=True,
              help="Average over every qrels topic; a topic missing from a run scores 0.")
@click.option("-M", "--depth", type=PlainInt(min=1), metavar="N",
              help="Evaluate only the first N documents of each topic.")
@click.option("--dedupe", is_flag=True, help="Keep the first-ranked copy of a repeated docno instead of failing.")
@click.option("-J", "--judged-only", is_flag=True,
              help="Condensed lists (trec_eval's -J, NTCIREVAL's -j): remove the documents the qrels do not "
                   "judge (after -M) before scoring, for every measure.")
@click.option("--rel-min", type=PlainInt(min=1, max=32767), default=1, show_default=True, metavar="L",
              help="Binary measures (AP, Prec, RR, bpref, I-rec, the ndeval set, ...) count levels >= L as "
                   "relevant (trec_eval's -l, ir_measures' rel=); graded measures keep every level's gain.")
@click.option("--baseline", metavar="RUN",
              help="Risk-sensitive evaluation: print each run's risk-adjusted differences from this run per "
                   "topic, their mean (URisk) and TRisk with its p-value, for every measure.")
@click.option("--risk-alpha", type=PlainFloat(), default=None, metavar="A",
              help="With --baseline: losses weigh 1+A (A >= 0; default 0).")
@click.option("--skip-bad", is_flag=True,
              help="A run that cannot be read (or shares no topic with the qrels) is named in a warning and "
                   "left out; the others are scored (default: it stops everything, exit status 2).")
@click.option("-f", "--format", "fmt", type=click.Choice(FORMATS), default="ndeval", show_default=True,
              help="Output format: ndeval's CSV, trec_eval's lines or JSON lines print each run's rows as soon as "
                   "it is scored; table aligns every column to its widest value over all the runs, so it prints "
                   "once the last is scored (with a progress bar meanwhile, on a terminal). compare and meta "
                   "--scores read each back.")
@click.option("-n", "--means-only", is_flag=True, help="Print only each run's mean row.")
@click.option("--run-column", is_flag=True,
              help="ndeval's CSV: a first column 'run' with each run's file, which tells apart runs whose "
                   "runtags collide (as json's 'run' does; compare and meta --scores read it back).")
@click.option("-j", "--jobs", type=PlainInt(min=0), default=1, show_default=True, metavar="N",
              help="Score runs in N worker processes (0: one per core); the output is the same.")
@cluster_options
@click.option("-q", "--quiet", is_flag=True, help="Do not print warnings. (Not trec_eval's -q: per-topic rows are always printed; -n leaves them out.)")
@click.version_option(__version__, "--version", prog_name="divaleval")
def evaluate_command(inputs, measures, iprob, aspects, prefs, order, gain, topicwise, compat, complete, depth, dedupe,
                     judged_only, rel_min, baseline, risk_alpha, skip_bad, fmt, means_only, run_column, jobs, scheduler,
                     ship_runs, quiet):
    """Evaluate diversity runs against intentwise qrels.

    QRELS holds lines 'topic intent docno judgment' (TREC integers or NTCIR
    levels L0, L1, ...); each RUN is a TREC run 'topic Q0 docno rank score runtag'.
    """
    try:
        evaluate_runs(inputs, measures, iprob, aspects, prefs, order, gain, topicwise, compat, complete, depth, dedupe,
                      judged_only, rel_min, baseline, risk_alpha, skip_bad, fmt, means_only, run_column, jobs,
                      scheduler, ship_runs, quiet)
    except UsageError as exc:
        raise click.UsageError(str(exc)) from None
    except DivalevalError as exc:  # InputError: "FILE:LINE: reason"
        show_input_error(exc)
