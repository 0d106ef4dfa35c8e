"""Schema objects in a transcript database that agentkit did not create: refused before use.

Why: a store is often a file shared between people and runs, and SQL objects in it act on their
own. A trigger ``AFTER UPDATE OF reward ON episodes ... SET reward = 0, success = 0`` made ``run``
print a success and store a failure, and rewrote other runs' episodes; a VIEW named like one of
the tables (``runs`` as an endless recursive query, ``episodes`` with a 400 MB column) made every
reader hang or take gigabytes. SQLite offers no way to switch triggers off from Python 3.11, so:

- a writer refuses a database holding any object that is not one of its own tables and indexes
  (triggers, views, other tables or indexes), in one line that names them and gives the DROP
  statements that clean it;
- a reader (which fires nothing: triggers act only on writes) refuses a database where one of the
  tables it reads is not a table, naming the object, and never runs it.

PostgreSQL is checked likewise for what can act there: triggers and rules on agentkit's tables,
and views named like them.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.engine import Connection

from agentkit.records import StorageError
from agentkit.transcripts.schema import Base

_SHOWN = 5  # objects named in the message; the DROP statements cover all of them


class ForeignObjectError(StorageError):
    """The database holds objects agentkit did not create; the message is one line naming them."""


@dataclass(frozen=True)
class SchemaObject:
    """One entry of the database's catalogue (``sqlite_master`` or PostgreSQL's)."""

    kind: str  # table, view, index, trigger, rule
    name: str
    table: str  # the table it belongs to (its own name for a table or view)

    def label(self) -> str:
        return f"{self.kind} {self.name}" + (f" on {self.table}" if self.table != self.name else "")


def _own_names() -> tuple[frozenset[str], frozenset[str]]:
    """agentkit's table names and index names, as its schema declares them."""
    tables = frozenset(Base.metadata.tables)
    indexes = frozenset(
        index.name for table in Base.metadata.tables.values() for index in table.indexes if index.name
    )
    return tables, indexes


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _catalogue(conn: Connection) -> list[SchemaObject]:
    """Every object of the database agentkit might meet (SQLite's internal ones left out)."""
    if conn.dialect.name == "sqlite":
        rows = conn.exec_driver_sql(
            "SELECT type, name, tbl_name FROM main.sqlite_master "
            "WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY type, name"
        ).all()
        return [SchemaObject(str(k), str(n), str(t)) for k, n, t in rows]
    if conn.dialect.name == "postgresql":
        tables, _ = _own_names()
        rows = conn.exec_driver_sql(
            "SELECT 'view', table_name, table_name FROM information_schema.views "
            "WHERE table_schema = current_schema() "
            "UNION ALL SELECT 'trigger', t.tgname, c.relname FROM pg_trigger t "
            "JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE NOT t.tgisinternal AND n.nspname = current_schema() "
            "UNION ALL SELECT 'rule', rulename, tablename FROM pg_rules WHERE schemaname = current_schema()"
        ).all()
        return [SchemaObject(str(k), str(n), str(t)) for k, n, t in rows if str(t) in tables]
    return []


def foreign_objects(conn: Connection) -> list[SchemaObject]:
    """The objects of the database that agentkit's schema does not declare."""
    tables, indexes = _own_names()
    found = []
    for obj in _catalogue(conn):
        own = (obj.kind == "table" and obj.name in tables) or (obj.kind == "index" and obj.name in indexes)
        if not own:
            found.append(obj)
    return found


def _drop_statement(obj: SchemaObject, postgresql: bool) -> str:
    if postgresql and obj.kind in ("trigger", "rule"):
        return f"DROP {obj.kind.upper()} {_quoted(obj.name)} ON {_quoted(obj.table)};"
    return f"DROP {obj.kind.upper()} {_quoted(obj.name)};"


def _how_to_clean(conn: Connection, objects: list[SchemaObject]) -> str:
    """The one command that drops ``objects``, for the database of ``conn``."""
    postgresql = conn.dialect.name == "postgresql"
    drops = " ".join(_drop_statement(o, postgresql) for o in objects)
    if postgresql:
        return f"psql -c '{drops}'"
    path = conn.exec_driver_sql("SELECT file FROM pragma_database_list WHERE name = 'main'").scalar()
    return f"sqlite3 {path or 'FILE'} '{drops}'"


def _listed(objects: list[SchemaObject]) -> str:
    shown = ", ".join(o.label() for o in objects[:_SHOWN])
    more = len(objects) - _SHOWN
    return shown + (f" and {more} more" if more > 0 else "")


def refuse_foreign_objects(conn: Connection) -> None:
    """For a writer: raise ForeignObjectError if the database holds anything agentkit did not create
    (a trigger or rule could rewrite what it stores; a view or index could shadow or block it)."""
    objects = foreign_objects(conn)
    if objects:
        raise ForeignObjectError(
            f"this database holds objects agentkit did not create ({_listed(objects)}), which could "
            f"change what it stores; agentkit will not write to it: remove them ({_how_to_clean(conn, objects)}) or write to a new "
            "database"
        )


def refuse_views_as_tables(conn: Connection) -> None:
    """For a reader: raise ForeignObjectError if a name agentkit reads as a table is something else
    (a view would be run as a query of unbounded time and size)."""
    tables, _ = _own_names()
    impostors = [o for o in _catalogue(conn) if o.kind == "view" and o.name in tables]
    if impostors:
        raise ForeignObjectError(
            f"{_listed(impostors)} is not agentkit's table (a view is never read as one): "
            f"remove it ({_how_to_clean(conn, impostors)}) or read another database"
        )
