"""Length asymmetry (slides 56-58): who processes how many tokens, and a toy test of the FLAN explanation.

The lecture reports that instruction tuning (FLAN) helped an encoder-decoder (T5) more than a decoder-only
model (PaLM), and explains it by a match between architecture and data: academic tasks have long inputs and
short targets, E[Lx] >> E[Ly], and an encoder-decoder gives inputs and targets parameters of their own.
One module per job, all returning plain data; callers use this package's names (`lengths.allocation`, ...):

  accounting  for a model shape and lengths Lx (input) and Ly (target): every parameter group, how many tokens
              per example it is applied to, and the exact forward FLOPs of `explorer.costs`; and where an
              encoder-decoder costs what a decoder-only model does.
  profiles    pairs of lengths: three synthetic, illustrative profiles, typed pairs or an uploaded CSV
              (validated); their mean lengths and their exact mean FLOPs per example.
  task, toy   tiny encoder-decoders and decoder-only models trained from scratch on a rank-summary task at
              several length ratios, matched in parameters and, separately, in FLOPs;
  runs        reusing shipped or cached models and training the rest;
  analysis    statistics over seeds.

Nothing here decides the lecture's claim: that concerns instruction tuning of large pretrained models, which
60k-parameter models trained from scratch cannot reproduce. The toy part measures what it can and says so.
"""

from explorer.experiments.lengths.accounting import (
    POSITIONS,
    Shape,
    allocation,
    attention_flops,
    cost_parity,
    parameter_groups,
)
from explorer.experiments.lengths.analysis import (
    METRICS,
    analyse,
    claims,
    learning_curves,
    log_ratio,
    loss_of,
    paired_test,
    percent,
    seed_slopes,
)
from explorer.experiments.lengths.families import DECODER, ENCDEC, FAMILY_NAMES
from explorer.experiments.lengths.profiles import (
    MAX_BYTES,
    MAX_LENGTH,
    MAX_ROWS,
    MAX_TYPED,
    PROFILE_PAIRS,
    PROFILES,
    LengthsError,
    length_stats,
    parse_typed,
    profile_pairs,
    profile_stats,
    read_pairs,
)
from explorer.experiments.lengths.runs import estimate_seconds, load_shipped, plan, run, shipped_path
from explorer.experiments.lengths.task import RankSummary
from explorer.experiments.lengths.toy import (
    ARM_NAMES,
    ARMS,
    FLOP_TOLERANCE,
    MATCHINGS,
    PARAM_TOLERANCE,
    PRESETS,
    SHIPPED_PRESETS,
    ToyConfig,
    arm_config,
    arm_table,
)

# the package's public names: callers write `lengths.allocation`, `lengths.PRESETS`, ...
__all__ = [
    "POSITIONS",
    "Shape",
    "allocation",
    "attention_flops",
    "cost_parity",
    "parameter_groups",
    "METRICS",
    "analyse",
    "claims",
    "learning_curves",
    "log_ratio",
    "loss_of",
    "paired_test",
    "percent",
    "seed_slopes",
    "DECODER",
    "ENCDEC",
    "FAMILY_NAMES",
    "MAX_BYTES",
    "MAX_LENGTH",
    "MAX_ROWS",
    "MAX_TYPED",
    "PROFILE_PAIRS",
    "PROFILES",
    "LengthsError",
    "length_stats",
    "parse_typed",
    "profile_pairs",
    "profile_stats",
    "read_pairs",
    "estimate_seconds",
    "load_shipped",
    "plan",
    "run",
    "shipped_path",
    "RankSummary",
    "ARM_NAMES",
    "ARMS",
    "FLOP_TOLERANCE",
    "MATCHINGS",
    "PARAM_TOLERANCE",
    "PRESETS",
    "SHIPPED_PRESETS",
    "ToyConfig",
    "arm_config",
    "arm_table",
]
