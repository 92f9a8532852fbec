"""Built-in models: the oracle, chance, blind prior, geometric heuristics and an OpenAI-compatible chat model."""
