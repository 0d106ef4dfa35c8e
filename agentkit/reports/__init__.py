"""Reports that compare runs with baselines (children, Olympics entrants, reference agents)."""
