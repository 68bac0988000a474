"""Run configuration shared by the data pipeline and the model."""

import dataclasses


@dataclasses.dataclass(frozen=True)
class Config:
    in_dim: int = 8
    hidden: int = 32
    out_dim: int = 1
    batch_size: int = 16
    n_samples: int = 256
    learning_rate: float = 1e-2
    steps: int = 20
    add_bias_feature: bool = True
    seed: int = 0


def describe(cfg):
    return ", ".join(f"{f.name}={getattr(cfg, f.name)}" for f in dataclasses.fields(cfg))
