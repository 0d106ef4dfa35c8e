"""TriFinger backend: CausalWorld-style block tasks on trifinger-simulation, driven by API-call scripts."""
