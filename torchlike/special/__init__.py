"""torchlike.special: functions are attached from the op table."""
