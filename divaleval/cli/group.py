"""The click group every command joins: ``divaleval [OPTIONS] QRELS RUN...`` runs the default command.

Each command lives in its own module of this package and registers itself with
``@main_group.command``; ``cli/__init__.py`` imports them.
"""
from __future__ import annotations

import click

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
DEFAULT_COMMAND = "evaluate"

IMPLICIT = "divaleval.implicit-command"  # ctx.meta key: the default command was not named


class DefaultGroup(click.Group):
    """A group that runs its default command when the first argument names no command."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args or args[0] not in self.commands:
            args = [DEFAULT_COMMAND, *args]
            ctx.meta[IMPLICIT] = True
        return super().parse_args(ctx, args)

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

