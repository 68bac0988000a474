# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 0ac69b30a6eedaebbbb604a6f08b3141ff6b3d5cb078ca70f1a76e53b4a3e9b5
# signature: ValueError: Non-hashable static arguments are not supported. An error occurred while trying to hash an object of type <class '__main__.TrainConfig'>, <value>. The error was:
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import dataclasses
import functools
import jax

@dataclasses.dataclass
class TrainConfig:
    pass
functools.partial(jax.jit, static_argnums=3)(lambda *_: None)(0, 0, 0.0, TrainConfig())
