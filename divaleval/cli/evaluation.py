"""What the default command does once its options are read, without click: :func:`evaluate_runs`.

The click command (evaluate.py) reads the options and calls it; so does the plain evaluation,
``divaleval QRELS RUN...`` with no option (divaleval/cli/__init__.py), with every option at its default,
which spares each such call click's import and parsing. The two give the same output byte for byte, and
the same messages (tests/test_startup.py).
"""
from __future__ import annotations

import sys
from typing import NoReturn

from ..errors import DivalevalError, UsageError, show_on_stderr
from .process import resume_collection, without_blas_threads


def evaluate_runs(inputs: tuple[str, ...], measures: tuple[str, ...] = (), iprob: str | None = None,
                  aspects: tuple[str, ...] = (), prefs: str | None = None, order: str | None = None,
                  gain: str = "exp", topicwise: str = "sumlog", compat: str | None = None, complete: bool = False,
                  depth: int | None = None, dedupe: bool = False, judged_only: bool = False, rel_min: int = 1,
                  baseline: str | None = None, risk_alpha: float | None = None, skip_bad: bool = False,
                  fmt: str = "ndeval", means_only: bool = False, run_column: bool = False, jobs: int = 1,
                  scheduler: str | None = None, ship_runs: bool = False, quiet: bool = False) -> None:
    """Evaluate the runs and print their scores on standard output (the options are the command's, by the
    names of its parameters; the defaults are its defaults).

    Raises :class:`UsageError` for options that do not fit (the command shows it as click shows a bad option)
    and :class:`~divaleval.errors.DivalevalError` for an input that cannot be read (shown as ``divaleval:
    FILE:LINE: reason``, exit status 2).
    """
    without_blas_threads()  # (before numpy loads; evaluating multiplies no matrices)
    from ..api import (
        check_stdin_once, load_aspects, load_preferences, load_qrels, make_settings, resolve_measures, risk_runs,
        score_runs,
    )
    from ..output import make_writer
    from .progress import Progress, count_runs
    from .scaleout import placement

    resume_collection()  # (what an evaluation imports is in)
    if aspects and prefs:
        raise UsageError("--aspect and --prefs are different judgments: give one of them")
    if aspects:
        qrels, runs = None, list(inputs)
        measures = measures or ("TOMA(m=nDCG)@10", "CAM(m=nDCG)@10", "MM(m=nDCG)@10")
    elif prefs:
        qrels, runs = None, list(inputs)
        measures = measures or ("preferences",)
    elif len(inputs) < 2:
        raise UsageError("expected QRELS and at least one RUN")
    else:
        qrels, runs = inputs[0], list(inputs[1:])
    if run_column and fmt != "ndeval":
        raise UsageError("--run-column is for -f ndeval (json has 'run'; table names runs by their labels)")
    if risk_alpha is not None and baseline is None:
        raise UsageError("--risk-alpha weighs losses against a baseline: give --baseline RUN")
    if risk_alpha is not None:
        from ..stats.risk import checked_alpha  # (evaluating without a baseline never loads stats/)

        checked_alpha(risk_alpha, "--risk-alpha")
    chosen = resolve_measures(list(measures) or None)
    make_settings(gain, topicwise, compat, rel_min)
    if aspects:
        from ..io.aspects import parse_aspect_specs  # (its reader only when aspects are given)

        aspect_specs = parse_aspect_specs(list(aspects))
    progress = Progress("divaleval", count_runs(runs), unit="runs", enabled=False if quiet else None)
    warn = (lambda message: None) if quiet else progress.warn
    writer = make_writer(fmt, sys.stdout, [m.name for m in chosen], means_only, run_column)
    try:
        with placement(jobs, scheduler, ship_runs, progress) as place:  # before the qrels: fails fast
            check_stdin_once(qrels or prefs, [*runs, *([baseline] if baseline else [])], iprob)
            progress.note(f"reading {'the aspects' if aspects else prefs or qrels}")
            loaded = load_aspects(aspect_specs) if aspects else load_preferences(prefs, compat) if prefs else \
                load_qrels(qrels, iprob, warn)
            progress.note("scoring runs")
            options = dict(order=order, depth=depth, complete=complete, dedupe=dedupe, skip_bad=skip_bad, gain=gain,
                           topicwise=topicwise, compat=compat, warn=warn, jobs=place.jobs, judged_only=judged_only,
                           rel_min=rel_min, scheduler=place.cluster)
            scored = risk_runs(loaded, list(runs), baseline, chosen, risk_alpha=risk_alpha or 0.0, **options) \
                if baseline else score_runs(loaded, list(runs), chosen, **options)
            for position, scores in enumerate(scored):
                if position == 0:
                    writer.start()
                progress.clear()
                writer.add_run(scores)
                sys.stdout.flush()
                progress.step()
    except DivalevalError:  # (its message goes where the progress line was)
        progress.clear()
        raise
    progress.clear()
    writer.finish()


def evaluate_plainly(inputs: list[str]) -> NoReturn:
    """``divaleval QRELS RUN...`` with no option: :func:`evaluate_runs` with its defaults, errors shown as the
    click command shows them; exits as click does (status 0, 2 for an error)."""
    try:
        with show_on_stderr():  # (as the command group does)
            evaluate_runs(tuple(inputs))
    except UsageError as exc:
        show_usage_error(str(exc))
    except DivalevalError as exc:
        show_input_error(exc)
    sys.exit(0)


def show_input_error(error: DivalevalError) -> NoReturn:
    """``divaleval: FILE:LINE: reason`` on standard error, exit status 2."""
    import click  # (click.echo: as every message of the command line is written)

    click.echo(f"divaleval: {error}", err=True)
    sys.exit(2)


def show_usage_error(message: str) -> NoReturn:
    """A usage error of the plain evaluation, shown as click shows the default command's (its usage, the
    pointer to ``-h``, the message), exit status 2."""
    import click

    from .evaluate import evaluate_command
    from .group import main_group

    group = main_group.context_class(main_group, info_name="divaleval", **main_group.context_settings)
    # (the default command's context, as the group makes it for a call that names no command)
    context = evaluate_command.context_class(evaluate_command, info_name="", parent=group,
                                             **evaluate_command.context_settings)
    error = click.UsageError(message, context)
    error.show()
    sys.exit(error.exit_code)
