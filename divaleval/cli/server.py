"""``divaleval server start|stop|status``: keep the evaluator loaded for the calls a script makes one run at a time."""
from __future__ import annotations

import time

import click

from .group import CONTEXT, DocumentedCommand, main_group
from .types import PlainFloat

EPILOG = """
\b
A script that calls divaleval once per run pays numpy's and pyarrow's imports
at every call (a quarter of a second on docs/speed.md's machine, three times
ndeval's whole call on a TREC 2012 run).
A server imports them once: while it runs, the divaleval command hands each
evaluating call (the default command, evaluate, ndeval, trec_eval, gdeval)
made with the same Python, divaleval and settings to a process forked from
it, which runs the call as it would have run in place: the same output,
messages and exit status, Ctrl-C included. The other commands run in place.
DIVALEVAL_SERVER=0 runs every call in place; DIVALEVAL_SERVER=1 makes a call
fail (status 2) where no server takes it. The server stops after --idle
seconds without a call, on `divaleval server stop`, and by itself when
divaleval's or pyarrow's files change. Linux only.

\b
Examples (from the root of the repository, on its sample data):
  divaleval server start --idle 60
  divaleval server status
  DIVALEVAL_SERVER=1 divaleval sample_data/qrels.txt sample_data/runs/bm25.txt
  divaleval server stop
"""


class ServerGroup(DocumentedCommand, click.Group):
    """A group of commands whose help points to the group's page, as every command's does."""

    command_class = click.Command


@main_group.group("server", cls=ServerGroup, context_settings=CONTEXT, epilog=EPILOG,
                  short_help="Keep the evaluator loaded: calls of one run each skip numpy's import.")
def server_command() -> None:
    """Start, stop or ask after the server that takes this environment's evaluating calls."""


@server_command.command("start", context_settings=CONTEXT)
@click.option("--idle", type=PlainFloat(0, None), default=600.0, show_default=True, metavar="SECONDS",
              help="Stop after this long without a call (0: run until stopped).")
def start_command(idle: float) -> None:
    """Start this environment's server; return once it takes calls."""
    from ..server import ServerError, start

    try:
        started = start(idle)
    except ServerError as error:
        raise click.ClickException(str(error)) from None
    click.echo(f"divaleval server: started (pid {started.pid}, {started.socket})", err=True)


@server_command.command("stop", context_settings=CONTEXT)
def stop_command() -> None:
    """Stop this environment's server once its running calls end."""
    from ..server import ServerError, stop

    try:
        stopped = stop()
    except ServerError as error:
        raise click.ClickException(str(error)) from None
    if stopped is None:
        click.echo("divaleval server: none was running", err=True)
    else:
        click.echo(f"divaleval server: stopped (pid {stopped.pid}, {stopped.calls} calls served)", err=True)


@server_command.command("status", context_settings=CONTEXT)
def status_command() -> None:
    """Whether a server takes this environment's calls (exit 0: yes)."""
    from ..server import status

    running = status()
    if running is None:
        click.echo("not running")
        raise SystemExit(1)
    idle = "until stopped" if not running.idle else f"stops after {running.idle:g} s without a call"
    since = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(running.started))
    click.echo(f"running: pid {running.pid}, since {since}, {running.calls} calls served, {running.running} "
               f"running now; {idle}; socket {running.socket}")
