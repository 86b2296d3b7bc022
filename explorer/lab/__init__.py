"""The lab: one way to train anything in this project.

- `protocol`: what a task must offer the training loop (batches, loss, readout), declared.
- `schedule`: the learning-rate schedules (the old constant one, and warm-up-stable-decay with a decay branch
  at every budget that is read).
- `fit`: the one training loop every experiment uses.
- `recipe`: how a run is made (learning-rate grid and choice per size, schedule, readout), recorded in results.
- `device`: `--device auto|cpu|cuda|mps`; the CPU is the default and nothing needs an accelerator.
- `runner`: plan (shipped, cached, missing), train, cache, report, stop, for every experiment.
- `estimate`: the one run-time model (training FLOPs over a measured FLOP rate).
- `registry`: the experiments the lab knows (`python -m explorer lab list`).
"""
