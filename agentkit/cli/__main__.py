"""`python -m agentkit.cli`: the `agentkit` command, for when the console script is not on PATH."""

from agentkit.cli import main

main()
