"""The transcript viewer: browse runs and episodes, step through turns, compare runs, export bundles.

``agentkit view`` serves it on 127.0.0.1 from a read-only connection to the transcript store
(``open_readonly``); ``ViewerServer`` runs it in-process; ``export_bundle`` writes the same pages
as static files that can be shared without the database.
"""

from agentkit.viewer.export import export_bundle
from agentkit.viewer.readonly import DatabaseNotFound, open_readonly
from agentkit.viewer.server import ViewerApp, ViewerServer

__all__ = ["DatabaseNotFound", "ViewerApp", "ViewerServer", "export_bundle", "open_readonly"]
