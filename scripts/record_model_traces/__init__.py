"""The parts of scripts/record_model_traces.py: recording (the profiler events and the CPU -> CUDA
rules), the models, the workloads and the output files."""
