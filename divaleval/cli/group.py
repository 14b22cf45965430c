"""The click group every command joins: ``divaleval [OPTIONS] QRELS RUN...`` runs the default command.

Each command lives in its own module of this package and registers itself with
``@main_group.command``. The default command and ndeval are imported with the
group (divaleval/cli/__init__.py); the others (choices.LAZY_COMMANDS) only when named, so that evaluating
runs never pays for importing what it does not use. ``divaleval --help`` lists
them by the ``short_help`` their module declares, read from its source
(:func:`declared_short_help`) rather than by importing it (with numpy, pyarrow...).
"""
from __future__ import annotations

import importlib
import importlib.util
import inspect

import click

from ..errors import show_on_stderr
from .choices import DEFAULT_COMMAND, LAZY_COMMANDS
from .process import exit_interrupted

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}

IMPLICIT = "divaleval.implicit-command"  # ctx.meta key: the default command was not named

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

    def command_short_help(self, ctx: click.Context, name: str, limit: int = 80) -> str:
        """A command's short help, without importing a lazy command's module where its source declares it."""
        if name not in self.commands and name in LAZY_COMMANDS:
            declared = declared_short_help(LAZY_COMMANDS[name])
            if declared is not None:
                return inspect.cleandoc(declared).strip()
        command = self.get_command(ctx, name)
        return command.get_short_help_str(limit) if command is not None else ""

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


def declared_short_help(module: str) -> str | None:
    """The ``short_help="..."`` (a literal) of the ``@main_group.command(...)`` (or ``.group``) in this package's
    ``module``, read from its source; None where there is none to read (the caller then imports the module)."""
    import ast  # (only for --help)

    spec = importlib.util.find_spec(f"{__package__}.{module}")
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return None
    try:
        with open(spec.origin, encoding="utf-8") as handle:
            tree = ast.parse(handle.read())
    except (OSError, SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("command", "group") \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "main_group":
            for keyword in node.keywords:
                if keyword.arg == "short_help" and isinstance(keyword.value, ast.Constant) \
                        and isinstance(keyword.value.value, str):
                    return keyword.value.value
    return None


class PlainContext(click.Context):
    @property
    def command_path(self) -> str:
        return super().command_path.strip()


@click.group(cls=DefaultGroup, context_settings=CONTEXT, invoke_without_command=False)
def main_group() -> None:
    """divaleval: an exact, fast evaluator for diversified and multi-aspect rankings."""
    # A library default the command left in place warns through Python's warnings: printed as the command's own.
    click.get_current_context().with_resource(show_on_stderr())

