"""The click group every command joins: ``divaleval [OPTIONS] QRELS RUN...`` runs the default command.

Each command lives in its own module of this package and registers itself with
``@main_group.command``. The default command and ndeval are imported with the
package; the others (:data:`LAZY_COMMANDS`) only when named, or for ``--help``,
so that evaluating runs never pays for importing what it does not use.
"""
from __future__ import annotations

import importlib
import signal
import sys
from typing import NoReturn

import click

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
DEFAULT_COMMAND = "evaluate"

# Commands imported only when named: command name -> module of this package.
LAZY_COMMANDS = {"axioms": "axioms", "compare": "compare", "gdeval": "gdeval", "meta": "meta",
                 "trec_eval": "trec_eval",
                 "simulate-preferences": "simulate_preferences", "validate": "validate"}
LAZY_COMMANDS["report"] = "report"  # the organiser's report (cli/report.py)

IMPLICIT = "divaleval.implicit-command"  # ctx.meta key: the default command was not named

INTERRUPTED = 128 + signal.SIGINT  # the status a shell gives a command that Ctrl-C ended


def exit_interrupted() -> NoReturn:
    """Ctrl-C: say so, and exit with the shell's status for it (not click's "Aborted!" and status 1,
    which a script could not tell from a failure that printed a whole output). Files the command was
    writing are already removed (output/atomic.py); what standard output got is cut short."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C does not cut the message short
    clear = "\r\x1b[K" if sys.stderr.isatty() else ""  # the progress line, if one was drawn
    sys.stderr.write(f"{clear}divaleval: interrupted\n")
    sys.stderr.flush()
    sys.exit(INTERRUPTED)


DOCS_PAGE = "docs/commands/{name}.md"  # each command's page of the documentation, in the repository


class DocumentedCommand(click.Command):
    """A command whose help ends with the page of the documentation that explains it (every command of the
    group is one, so that no command's help goes without its pointer)."""

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_epilog(ctx, formatter)
        formatter.write_paragraph()
        with formatter.indentation():
            formatter.write_text("Docs: " + DOCS_PAGE.format(name=self.name))


class DefaultGroup(click.Group):
    """A group that runs its default command when the first argument names no command."""

    command_class = DocumentedCommand

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(self.commands) | set(LAZY_COMMANDS))

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in self.commands and name in LAZY_COMMANDS:
            importlib.import_module(f"{__package__}.{LAZY_COMMANDS[name]}")  # registers the command
        return super().get_command(ctx, name)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args or args[0] not in self.list_commands(ctx):
            args = [DEFAULT_COMMAND, *args]
            ctx.meta[IMPLICIT] = True
        return super().parse_args(ctx, args)

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:  # before click makes it "Aborted!"
            exit_interrupted()

    def resolve_command(self, ctx: click.Context, args: list[str]):
        name, command, rest = super().resolve_command(ctx, args)
        # Messages then say "divaleval -h", as the user typed no command name.
        return ("" if ctx.meta.get(IMPLICIT) else name), command, rest


class PlainContext(click.Context):
    @property
    def command_path(self) -> str:
        return super().command_path.strip()


@click.group(cls=DefaultGroup, context_settings=CONTEXT, invoke_without_command=False)
def main_group() -> None:
    """divaleval: an exact, fast evaluator for diversified and multi-aspect rankings."""

