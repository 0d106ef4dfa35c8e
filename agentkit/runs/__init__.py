"""A run: its episodes planned, played by workers, kept within budget, and summed up.

``runner.execute_run`` opens or takes over a run and plans tasks x trials; ``worker`` plays one
planned episode with the parts ``setup_episode`` builds from the ``RunConfig``; ``budget`` holds
the run-wide limits and the stop flag; ``preflight`` and ``endpoint_check`` refuse a model that
cannot answer before the first episode; ``executors/`` runs the same worker as Ray tasks;
``experiment`` turns an experiment file (or a shipped preset, ``preset_files``) into runs.
Nothing here is imported by the layers below (models, transcripts, envs, ...).
"""
