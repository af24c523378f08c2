"""GPU telemetry, Qt-free: NVML or simulated sources, a sampling thread, history, recordings.

Modules: ``types`` (frozen Frame / GpuSample / DeviceInfo; None = not available), ``nvml``
(the only module that imports pynvml, lazily), ``simulated``, ``sampler`` (daemon thread),
``history`` (bounded ring buffers), ``recorder`` (SQLite). Nothing is imported here, so
importing the package costs nothing and never loads pynvml.
"""
