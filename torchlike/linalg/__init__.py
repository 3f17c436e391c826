"""torchlike.linalg: functions are attached from the op table."""
