"""Where a run's episodes execute when one machine is not enough.

Why: the runner plays episodes in threads or local worker processes; a lab evaluating many models
on thousands of CPU-bound simulated episodes needs a cluster. ``--executor ray`` hands the same
per-episode code (``agentkit.runs.worker.Worker``) to Ray tasks on every node of a Ray cluster,
while the process that runs ``agentkit eval`` keeps the run's lease, its budget and its summary.
Ray is optional (the ``ray`` extra); nothing here imports it until a Ray run starts.
"""
