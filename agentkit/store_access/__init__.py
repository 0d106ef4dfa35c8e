"""The application's side of opening a transcript database, and of what goes wrong there.

``db_argument`` checks a ``--db`` value before any store is opened; ``read_errors`` turns a
damaged database into the one line a command ends with; ``storage_fix`` says what to do about
a store that cannot write. The store itself is ``agentkit.transcripts``.
"""
