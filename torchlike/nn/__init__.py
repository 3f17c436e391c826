"""torchlike.nn."""
