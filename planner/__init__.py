"""GPU Planner: plan, monitor and buy NVIDIA GPUs for deep learning."""

__version__ = "0.1.0"
