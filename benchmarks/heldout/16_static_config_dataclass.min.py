import dataclasses

import jax


@dataclasses.dataclass
class TrainConfig:
    degree: int = 3
    lr: float = 0.05
    momentum: float = 0.9


jax.jit(lambda config: None, static_argnums=0)(TrainConfig())
