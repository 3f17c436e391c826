"""torchlike.fft: functions are attached from the op table."""
