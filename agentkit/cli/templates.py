"""`agentkit templates list|show|copy`: the packaged prompt template sets, to read and to start from.

Why: a researcher changing a prompt needs the packaged text and the variables each template can
use, and a copy to edit and pass back with ``--templates DIR`` (docs/templates.md says what each
variable holds).
"""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from agentkit.cli._common import emit_json, err, fail, out
from agentkit.cli._help import HELP_LAYOUT

templates_app = typer.Typer(
    no_args_is_help=True, help="List, show and copy the packaged prompt template sets.", **HELP_LAYOUT
)


@templates_app.command("list")
def templates_list(as_json: bool = typer.Option(False, "--json")) -> None:
    """The packaged template sets, the backend each is for, and their files."""
    from agentkit.prompts.template_sets import get_set, set_names

    sets = [get_set(name) for name in set_names()]
    if as_json:
        emit_json(
            [
                {"name": s.name, "backend": s.backend, "description": s.description, "files": list(s.files)}
                for s in sets
            ]
        )
        return
    table = Table(title="template sets (--templates NAME, or copy one and pass its folder)")
    for col in ("set", "backend", "description", "files"):
        table.add_column(col, overflow="fold")
    for s in sets:
        table.add_row(
            s.name, s.backend, s.description, ", ".join(f for f in s.files if not f.endswith(".png"))
        )
    out.print(table)


@templates_app.command("show")
def templates_show(
    name: str = typer.Argument(..., help="A packaged set (see `agentkit templates list`)."),
    file: str | None = typer.Argument(None, help="One file of the set (system.j2, turn.j2, examples.json)."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """A set's templates and the variables each uses; with FILE, that file's text, then its variables."""
    from agentkit.prompts.renderer import TemplateError
    from agentkit.prompts.template_sets import get_set, read_file, set_variables, template_variables

    try:
        template_set = get_set(name)
        if file is None:
            variables = set_variables(name)
            if as_json:
                emit_json(
                    {
                        "name": name,
                        "backend": template_set.backend,
                        "description": template_set.description,
                        "files": list(template_set.files),
                        "variables": variables,
                    }
                )
                return
            out.print(f"{name}: {template_set.description} (backend {template_set.backend})", markup=False)
            for template, names in variables.items():
                out.print(f"  {template}: {', '.join(names)}", markup=False)
            others = [f for f in template_set.files if f not in variables]
            if others:
                out.print(f"  also: {', '.join(others)}", markup=False)
            out.print("what each variable holds: docs/templates.md", markup=False)
            return
        text = read_file(name, file)
        variables_of_file = template_variables(text) if file.endswith(".j2") else []
    except TemplateError as exc:
        fail(str(exc))
    if as_json:
        emit_json({"name": name, "file": file, "text": text, "variables": variables_of_file})
        return
    out.print(text.rstrip("\n"), markup=False, highlight=False)
    if file.endswith(".j2"):
        err.print(f"variables of {name}/{file}: {', '.join(variables_of_file)}", markup=False)


@templates_app.command("copy")
def templates_copy(
    name: str = typer.Argument(..., help="A packaged set (see `agentkit templates list`)."),
    target: Path = typer.Argument(..., help="Folder to copy it into (made if missing)."),
    force: bool = typer.Option(False, "--force", help="Overwrite files of the same names in the folder."),
) -> None:
    """Copy a set's files into a folder to edit; run with `--templates DIR` to use them."""
    from agentkit.prompts.renderer import TemplateError
    from agentkit.prompts.template_sets import copy_set

    try:
        written = copy_set(name, target, force)
    except (TemplateError, OSError) as exc:
        fail(str(exc))
    err.print(
        f"copied {len(written)} files of {name} to {target}; use them with --templates {target}", markup=False
    )


def register(app: typer.Typer) -> None:
    app.add_typer(templates_app, name="templates")
